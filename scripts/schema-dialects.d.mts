export function postgresSchema(source: string): string;

// The parts of the npm `oidc-provider` package (it ships no types) that test/oidc/provider.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Context {
    path: string;
    body: unknown;
  }
  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }
  interface Configuration {
    clients?: Record<string, unknown>[];
    jwks?: { keys: Record<string, unknown>[] };
    cookies?: { keys: string[] };
    pkce?: { required: () => boolean };
    claims?: Record<string, string[]>;
    conformIdTokenClaims?: boolean;
    findAccount?: (ctx: Context, id: string) => Promise<Account | undefined>;
    features?: Record<string, { enabled: boolean }>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    use(middleware: (ctx: Context, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}

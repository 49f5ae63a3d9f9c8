/**
 * What a start script sets: its V8 flags (`NODE_OPTIONS="…"`, before the caller's own) and the
 * variables it gives a default (`NAME=${NAME:-value}`: glibc's malloc settings), which the caller's
 * environment overrides.
 */
export function startSettings(script: string): { startFlags: string | undefined; startDefaults: Record<string, string> } {
  const startFlags = /NODE_OPTIONS=\\?"([^"$\\]*)/.exec(script)?.[1]?.trim();
  const startDefaults = Object.fromEntries([...script.matchAll(/\b([A-Z_]+)=\$\{\1:-([^}]*)\}/g)].map((m) => [m[1]!, m[2]!]));
  return { startFlags, startDefaults };
}

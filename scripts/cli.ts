/** Tiny `--name value` argument reader for the npm scripts. */
export function argValue(name: string): string | undefined {
  const args = process.argv.slice(2);
  const at = args.indexOf(`--${name}`);
  if (at >= 0) return args[at + 1];
  const inline = args.find((a) => a.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
}

export function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

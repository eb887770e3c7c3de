/**
 * Values derived from the whole route table that a function needs at run time (every route
 * key, the OpenAPI document). The stack inlines them into the function's bundle at synth
 * (esbuild `define` of `process.env.<NAME>`: too large for Lambda's environment), so callers
 * pass `process.env.<NAME>` literally, which the bundler replaces. Run from source, the local
 * runtime provides them in-process instead (a 200 KB environment variable would break every
 * child process it starts).
 */
const provided = new Map<string, string>();

export function provideEmbedded(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) provided.set(name, value);
}

/** The inlined value, else the one the local runtime provided; throws when neither exists. */
export function embedded(name: string, inlined: string | undefined): string {
  const value = inlined ?? provided.get(name);
  if (value === undefined) throw new Error(`${name} is missing: the route table did not give this function its embedded values`);
  return value;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Values derived from the whole route table that a function needs at run time (every route
 * key, the OpenAPI document), which it must not compute itself (that would bundle every
 * domain) and which do not fit Lambda's 4 KB environment. The stack writes each as
 * `<NAME>.json` beside the function's bundle at synth (infra/embeds.ts); run from source, the
 * local runtime provides them in-process.
 */
const provided = new Map<string, string>();

export function provideEmbedded(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) provided.set(name, value);
}

/** The value the local runtime provided, else the file beside the deployed bundle. */
export function embedded(name: string): string {
  const value = provided.get(name);
  if (value !== undefined) return value;
  const root = process.env.LAMBDA_TASK_ROOT;
  if (!root) throw new Error(`${name} is missing: the route table did not give this function its embedded values`);
  return readFileSync(join(root, `${name}.json`), 'utf8');
}

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every `.ts` file below `dir`, for the tests that read the source (module graph, idioms). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

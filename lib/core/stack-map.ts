import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/*
 * Readable stack traces without paying for them at cold start. A deployed function is one
 * minified bundle with its source map beside it (`index.mjs.map`); Node's own mapping
 * (`--enable-source-maps`) reads and parses that map when the bundle loads, on every cold start
 * (docs/performance.md, "Module init"). Here the map is read only when an error is logged, on the
 * first such error of a container, and each frame of the stack is rewritten to the TypeScript
 * file and line it came from. Where Node already maps stacks (tsx, the flag), or a file has no
 * map beside it, the stack is left as it is.
 */

/** Maps read so far, by bundle file (null: it has none). */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** `file:///var/task/index.mjs:1:2345` or `/var/task/index.mjs:1:2345`, at the end of a frame (optionally in parentheses). */
const FRAME_LOCATION = /((?:file:\/\/)?\/[^\s():]+\.m?js):(\d+):(\d+)(\)?)$/;

/** The stack with each frame in a mapped bundle pointing at its source (`lib/tickets/claims/claims.ts:120:9`). */
export function mappedStack(stack: string): string {
  if (process.sourceMapsEnabled) return stack;
  return stack
    .split('\n')
    .map((line) => {
      const match = FRAME_LOCATION.exec(line);
      if (!match) return line;
      const [whole, location, lineText, columnText, closing] = match as unknown as [string, string, string, string, string];
      const file = location.startsWith('file://') ? fileURLToPath(location) : location;
      const map = mapOf(file);
      if (!map) return line;
      const entry = map.findEntry(Number(lineText) - 1, Number(columnText) - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      if (entry.originalSource === undefined || entry.originalLine === undefined) return line;
      // Sources are named relative to the map (`../../lib/…`): shown from the repository's own folders, or from node_modules.
      const from = entry.originalSource.search(/(?:^|\/)(?:lib|functions|infra|test|node_modules)\//);
      const source = from < 0 ? entry.originalSource : entry.originalSource.slice(entry.originalSource[from] === '/' ? from + 1 : from);
      return `${line.slice(0, line.length - whole.length)}${source}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}${closing}`;
    })
    .join('\n');
}

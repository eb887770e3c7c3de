import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../lib/core/errors.js';
import { ERRORS_DOC, withCurrentTable } from '../../infra/docs/errors.js';
import { sourceFiles } from '../support/source-files.js';

/*
 * The error catalogue (lib/core/errors.ts, docs/design/errors.md): its generated table in the
 * docs is current, and every code it declares is answered somewhere (no entry outlives its code).
 */
describe('the error catalogue', () => {
  it('is the table docs/design/errors.md shows (npx tsx infra/docs/errors.ts rewrites it)', () => {
    const document = readFileSync(ERRORS_DOC, 'utf8');
    expect(document).toBe(withCurrentTable(document));
  });

  it('declares only codes the service answers', () => {
    const sources = [...sourceFiles(resolve('lib')), ...sourceFiles(resolve('infra'))]
      .filter((path) => !path.endsWith('lib/core/errors.ts'))
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n');
    const unused = Object.keys(ERRORS).filter((code) => !sources.includes(`'${code}'`));
    expect(unused).toEqual([]);
    expect(relative(resolve('.'), ERRORS_DOC)).toBe('docs/design/errors.md');
  });
});

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { sourceFiles } from '../support/source-files.js';
import { join, relative, resolve } from 'node:path';

/*
 * One idiom for each recurring need, held by reading the source (as the module-graph test does):
 * - a lost race is a `LostRace` (lib/db/races.ts), which `retryLostRaces` runs again from its read
 *   and which escapes as 409 CONFLICT only after the policy's attempts; no domain answers a plain
 *   409 that asks the client to retry;
 * - the search copies of a name (`searchName`, `searchText`) are derived by their entity (ElectroDB
 *   `watch`), never written by domain code;
 * - DynamoDB's errors are recognised by the SDK's classes, not by their `name` text;
 * - an error code acts on is its own class (ClaimRefused, NotFound, WeeklyCapReached…): no control
 *   flow compares an error's code with a string (docs/design/errors.md);
 * - round trips are asserted in test/http/round-trips/ only, the tables of what each request
 *   costs (its routes by domain, and its scenarios), so a change of cost is one edit in one place.
 */
const LIB = resolve('lib');
const files = sourceFiles(LIB).map((path) => ({ path: relative(LIB, path), source: readFileSync(path, 'utf8') }));
const linesMatching = (pattern: RegExp, keep: (path: string) => boolean = () => true) =>
  files.filter((file) => keep(file.path)).flatMap((file) => file.source.split('\n').flatMap((line, index) => (pattern.test(line) ? [`${file.path}:${index + 1}`] : [])));

/**
 * One plain 409 that asks for a retry stays, because running the operation again here would meet
 * the same answer: sign-up writes only fresh ids (nothing was read that could be read again).
 */
const NOT_A_READ_TO_REDO = new Set(['identity/signup.ts']);

describe('one idiom for each recurring need', () => {
  it('answers a lost race with LostRace, never with a plain 409 asking to retry', () => {
    expect(linesMatching(/conflict\([^)]*retry/, (path) => !path.startsWith('db/') && !NOT_A_READ_TO_REDO.has(path))).toEqual([]);
  });

  it('leaves the search copies of names to their entities', () => {
    expect(linesMatching(/\bsearch(Name|Text)\s*:/, (path) => !path.startsWith('db/entities/'))).toEqual([]);
    for (const entity of ['board.ts', 'team.ts', 'customer.ts']) {
      expect(files.find((file) => file.path === `db/entities/${entity}`)!.source).toMatch(/search(Name|Text)[\s\S]{0,120}watch:/);
    }
  });

  it('asserts round trips in the budget tests only', () => {
    const TEST = resolve('test');
    const asserting = sourceFiles(TEST)
      .map((path) => relative(TEST, path))
      .filter((path) => path.endsWith('.test.ts') && !path.startsWith('http/round-trips/') && path !== 'unit/idioms.test.ts')
      .filter((path) => /\.roundTrips\b/.test(readFileSync(join(TEST, path), 'utf8')));
    expect(asserting).toEqual([]);
  });

  it('tells the errors it acts on apart by their class, never by comparing codes', () => {
    expect(linesMatching(/\.code\s*[!=]==?\s*'[A-Z][A-Z_]+'|'[A-Z][A-Z_]+'\s*[!=]==?\s*[\w.]*\.code\b|\.includes\([\w.]*\.code\)/)).toEqual([]);
  });

  it('recognises DynamoDB errors by their class', () => {
    expect(linesMatching(/name\s*[!=]==?\s*'[A-Za-z]+Exception'|'[A-Za-z]+Exception'\s*[!=]==?/)).toEqual([]);
  });
});

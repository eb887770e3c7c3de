import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The AWS SDK warns once per process that its 2027 releases need Node 22; the test run starts
// many processes (workers, npm start, the example), so the notice would repeat (CI and Lambda run 24).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * The fleet test writes thousands of stream records a minute; the shared runtime's one stream
 * consumer falls behind it, and files that wait for their events would wait for the fleet's.
 * So it runs in a group of its own, after every other file (groups run one after another).
 */
const ALONE = ['test/integration/fleet.test.ts'];

/**
 * Files that take minutes (a 5,000-ticket job with a kill in the middle, servers killed and
 * started again) start first, so the other worker runs the short files meanwhile; left to the
 * default order (by file size, on a fresh clone) they started last and ran on alone.
 */
const LONG = ['test/integration/background-deletion.test.ts', 'test/integration/crash-recovery.test.ts', 'test/integration/idempotency-crash.test.ts'];

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONG.findIndex((path) => file.moduleId.endsWith(path));
      return index < 0 ? LONG.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/worker-env.ts'],
    // Twice the longest test seen in a full run on a busy 2-core machine (a test near its limit fails at random).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    sequence: { sequencer: LongFilesFirst },
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});

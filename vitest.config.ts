import { defineConfig } from 'vitest/config';

// The AWS SDK warns once per process that its 2027 releases need Node 22; the test run starts
// many processes (workers, npm start, the example), so the notice would repeat. Lambda runs 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * The fleet test writes thousands of stream records a minute; the shared runtime's one stream
 * consumer falls behind it, and files that wait for their events would wait for the fleet's.
 * So it runs in a group of its own, after every other file (groups run one after another).
 */
const ALONE = ['test/integration/fleet.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/worker-env.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});

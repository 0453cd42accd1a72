import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';

/**
 * Unit files that act on the whole process, each in a fresh worker: they assert on its open handles
 * or its process.stderr (a file run before them in the same worker could leave a socket closing or
 * a line being written), or they fake the timers (work a previous file left running, such as
 * undici's connection timers, would be scheduled on the fake clock and never fire after it).
 */
const ISOLATED = ['test/sandbox/library.test.ts', 'test/sandbox/log-lines.test.ts', 'test/sandbox/scheduler.test.ts'];

export default defineConfig({
  test: {
    // The longest e2e files first, even on a clean checkout (test/helpers/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/browser/**', ...ISOLATED],
          testTimeout: 15_000,
          // In-process tests: worker threads start faster than forked processes. Three on a 2-core
          // machine: many files wait more than they compute (a sandbox's rate limit, a real
          // SpamAssassin, a link timeout), and a third worker uses the cores meanwhile (2 workers:
          // 38 s, 35 s of CPU; 3: 29 s, 37 s of CPU; 4: no faster, 41 s of CPU).
          pool: 'threads',
          maxWorkers: 3,
          // Files share their worker and its loaded modules (importing src/ and its dependencies
          // once per worker instead of once per file was most of this project's time). Each file
          // starts with no held secrets (shared-worker-setup.ts); no file changes process.env,
          // listens on process signals or mocks modules, and fake timers and spies are restored
          // after each test.
          isolate: false,
          setupFiles: ['test/helpers/shared-worker-setup.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'unit-isolated',
          include: ISOLATED,
          testTimeout: 15_000,
          pool: 'threads',
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          // The machine has 2 cores, but e2e files wait on what they spawn (a CLI, a shell, a
          // terminal, npm) and on rate limits: a third worker fills the cores meanwhile (2 workers:
          // 69 s, 74 s of CPU; 3: 52 s, the same CPU).
          maxWorkers: 3,
          // As in the unit project: the files share their worker threads and the modules loaded in
          // them (the sandbox, the test helpers). They spawn the CLI rather than act on this process:
          // none writes process.env, listens on its signals or mocks modules.
          pool: 'threads',
          isolate: false,
          setupFiles: ['test/helpers/shared-worker-setup.ts'],
          // Projects with different maxWorkers must run in separate groups (plain `vitest run`).
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          // One Chromium for the whole file; its pages share the 2 cores.
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

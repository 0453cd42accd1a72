import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/browser/**'],
          testTimeout: 15_000,
          // In-process tests: worker threads start faster than forked processes, and vitest's default
          // (available cores - 1) would run the files one at a time on a 2-core machine.
          pool: 'threads',
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          // The machine has 2 cores; e2e files spawn servers and CLIs.
          maxWorkers: 2,
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

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**'],
          testTimeout: 15_000,
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
    ],
  },
});

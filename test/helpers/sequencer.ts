import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, started first in their project so that no long file is left to run
 * alone on one core at the end. Vitest orders by the durations of the previous run when it has them,
 * but a clean checkout (CI) has none and it falls back to file size, which puts several of these
 * last. Most of the unit ones wait rather than compute (a real SpamAssassin, a rate limit, a link
 * timeout), so started first they wait while the other files use the cores.
 */
const LONGEST_FIRST = [
  // e2e: a packed-tarball install and type-check, every docs example, the 10,000-email batches, a rate-limited run
  'test/e2e/library-tarball.test.ts',
  'test/e2e/docs-examples.test.ts',
  'test/e2e/batch-faults.test.ts',
  'test/e2e/help.test.ts',
  'test/e2e/batch.test.ts',
  'test/e2e/batch-resume.test.ts',
  'test/e2e/sandbox-crash.test.ts',
  'test/e2e/batch-full-disk.test.ts',
  'test/e2e/sandbox-library-examples.test.ts',
  // unit
  'test/cli/lint-spam.test.ts',
  'test/cli/pacing.test.ts',
  'test/cli/lint.test.ts',
  'test/hostile/hostile-input.test.ts',
  'test/batch/report-backpressure.test.ts',
  'test/cli/batch-retries.test.ts',
  'test/sandbox/api-robustness.test.ts',
  'test/render/react-email.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((path) => spec.moduleId.endsWith(`/${path}`));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // Projects stay in the base order (they run group by group); within one, the listed files come
    // first and the rest keep the base order.
    const firstOfProject = new Map<string, number>();
    sorted.forEach((spec, i) => firstOfProject.has(spec.project.name) || firstOfProject.set(spec.project.name, i));
    const key = sorted.map((spec, i) => [firstOfProject.get(spec.project.name)!, rank(spec), i] as const);
    return sorted
      .map((spec, i) => ({ spec, key: key[i]! }))
      .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2])
      .map(({ spec }) => spec);
  }
}

import type { Command } from 'commander';
import { usageError } from '../../errors.js';

/**
 * Options that do nothing without another, by command: given alone they would be ignored without
 * a word, so each is refused (exit 2) naming what it needs, before anything is read or sent. An
 * option whose default applies either way counts only when the command line gives it. Checked
 * where the command weighs them anyway: `send --props` (--react), `lint --props` (a React file),
 * `api --slurp` (--paginate), `sandbox email --fail-on` (--checks), `sandbox --fault-seed` (a fault
 * rate, also from --config).
 */
export const DEPENDENT_OPTIONS: Readonly<Record<string, ReadonlyArray<readonly [option: string, needs: readonly string[]]>>> = {
  lint: [
    ['--max-links', ['--check-links']],
    ['--link-timeout', ['--check-links']],
    ['--templates', ['--file', '--batch']],
  ],
  batch: [
    ['--allow-other-host', ['--resume']],
    ['--allow-other-key', ['--resume']],
  ],
  'webhooks listen': [
    ['--forward-queue', ['--forward-to']],
    ['--stop-timeout', ['--forward-to']],
  ],
};

/**
 * Refuses the first option of `path`'s list given without any of the options it needs; called by
 * the command's options function (so `check`'s start-up loads none of this).
 */
export function checkDependentOptions(path: string, cmd: Command): void {
  const rules = DEPENDENT_OPTIONS[path];
  if (rules === undefined) return;
  const given = (flag: string): boolean => {
    const option = cmd.options.find((o) => o.long === flag);
    if (option === undefined) throw new Error(`${path} has no option ${flag}`);
    const source = cmd.getOptionValueSource(option.attributeName());
    return source === 'cli' || source === 'env';
  };
  for (const [option, needs] of rules) {
    if (given(option) && !needs.some(given)) throw usageError(`${option} needs ${needs.join(' or ')}`);
  }
}

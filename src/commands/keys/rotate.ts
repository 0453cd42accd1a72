import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { requireId } from '../../input/ids.js';
import { verb } from '../verb.js';
import type { KeysRotateOptions } from './rotate.run.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('rotate')
    .description('replace a key safely: create a new one (same name and role), verify it, then delete the old one')
    .argument('<aki_id>', 'the key to replace')
    .option('--save-as <profile>', 'store the new key in this profile (before the old key is deleted)')
    .option('-y, --yes', 'do not ask for confirmation (required when no terminal is attached)')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom keys rotate aki_123 --save-as default   # asks first on a terminal
  $ mailroom keys rotate aki_123 --yes --json > new-key.json

Steps: look up the old key, confirm (it names the key and says whether it is the one in use), create the new one, check the new secret against the API, save it (--save-as),
and only then delete the old key. If any step fails the old key keeps working, a half-made new key is
deleted, and the error says exactly what is left. The new secret is printed once:
-q, or --json fields without secretKey, would lose it: refused unless --save-as keeps it.`,
    )
    .action(verb(ctx, () => import('./rotate.run.js'), (flags: Omit<KeysRotateOptions, 'id'>, [id]): KeysRotateOptions => ({ ...flags, id: requireId('apiKey', id as string) })));
}

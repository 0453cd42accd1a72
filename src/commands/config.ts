import type { Command } from 'commander';
import type { Context } from '../context.js';
import { ALL_KEYS, STORED_KEYS } from './shared/config-keys.js';
import { verb } from './verb.js';
import type { ConfigOptions } from './config.run.js';

export function register(parent: Command, ctx: Context): void {
  const config = parent
    .command('config')
    .description('show and edit settings: each value with where it came from (flag, env, profile, default)')
    .addHelpText(
      'after',
      `
Keys: ${STORED_KEYS.join(', ')}, stored in the chosen profile (set creates it; get, list and unset
refuse a --profile that is not stored, as every command does); and profile, shown only: choose it
with --profile or MAILROOM_PROFILE.

Examples:
  $ mailroom config list
  $ mailroom config get base-url
  $ mailroom config set workspace wrk_123 --profile ci
  $ printf '%s' "$KEY" | mailroom config set api-key -     # prefer \`mailroom login\`: it checks the key
  $ mailroom config unset base-url
  $ mailroom config path`,
    );
  const load = () => import('./config.run.js');
  config
    .command('list')
    .description('every effective setting, its source, secrets masked')
    .addHelpText('after', examples('mailroom config list', 'mailroom config list --profile ci --json'))
    .action(verb(ctx, load, (): ConfigOptions => ({ verb: 'list' })));
  config
    .command('get')
    .description('one effective setting, as plain text (--json: with its source; api-key is masked)')
    .addHelpText('after', examples('mailroom config get base-url', 'mailroom config get workspace --json    # {"key","value","source","origin"}'))
    .argument('<key>', ALL_KEYS.join(' | '))
    .action(verb(ctx, load, (_flags: unknown, [key]): ConfigOptions => ({ verb: 'get', key: key as string })));
  config
    .command('set')
    .description('store a setting in the profile')
    .addHelpText(
      'after',
      examples('mailroom config set workspace wrk_123', 'mailroom config set base-url http://127.0.0.1:4025 --profile sandbox', `printf '%s' "$KEY" | mailroom config set api-key -     # prefer \`mailroom login\``),
    )
    .argument('<key>', STORED_KEYS.join(' | '))
    .argument('<value>', 'the value; for api-key, "-" reads it from stdin (argv is visible to other local users)')
    .action(verb(ctx, load, (_flags: unknown, [key, value]): ConfigOptions => ({ verb: 'set', key: key as string, value: value as string })));
  config
    .command('unset')
    .description('remove a setting from the profile')
    .addHelpText('after', examples('mailroom config unset base-url', 'mailroom config unset api-key --profile ci'))
    .argument('<key>', STORED_KEYS.join(' | '))
    .action(verb(ctx, load, (_flags: unknown, [key]): ConfigOptions => ({ verb: 'unset', key: key as string })));
  config
    .command('path')
    .description('where the config store lives')
    .addHelpText('after', examples('mailroom config path', 'MAILROOM_CONFIG_DIR=/tmp/mr mailroom config path'))
    .action(verb(ctx, load, (): ConfigOptions => ({ verb: 'path' })));
}

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}

import { Option, type Command } from 'commander';
import { SECURE_STORAGE } from '../config/file.js';
import type { Context } from '../context.js';
import { choiceParser } from '../input/choice.js';
import { verb } from './verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('login')
    .description('store an API key in a profile, after checking it with the API')
    .option('--api-key-stdin', 'read the key from stdin instead of a hidden prompt')
    .addOption(
      new Option('--secure-storage <mode>', 'auto: the system keychain, else the config file with a warning; required: the keychain or nothing; off: the file')
        .choices(SECURE_STORAGE)
        .argParser(choiceParser('--secure-storage', SECURE_STORAGE)),
    )
    .option('--migrate', 'move the keys kept in the config file into the system keychain (no key asked, no request)')
    .addHelpText(
      'after',
      `
The key is asked with a hidden prompt on a terminal, or read from stdin with --api-key-stdin; it is
checked (GET /v1/api-keys/check) before anything is saved. The global --profile, --base-url and
--workspace choose the profile and are stored with it.

The key goes into the system keychain (Secret Service, macOS Keychain, Windows Credential Manager)
and the config file keeps only where it is; with no keychain, into the config file (mode 0600) with
a warning. --secure-storage, MAILROOM_SECURE_STORAGE or \`config set secure-storage\` choose.

Examples:
  $ mailroom login
  $ printf '%s' "$SMASHSEND_API_KEY" | mailroom login --api-key-stdin --profile ci
  $ mailroom login --profile staging --base-url https://staging-api.example.com --workspace wrk_123
  $ mailroom login --secure-storage required
  $ mailroom login --migrate`,
    )
    .action(verb(ctx, () => import('./login.run.js')));
}

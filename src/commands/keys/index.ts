import type { Command } from 'commander';
import type { Context } from '../../context.js';
import * as list from './list.js';
import * as create from './create.js';
import * as update from './update.js';
import * as del from './delete.js';
import * as rotate from './rotate.js';

export function register(program: Command, ctx: Context): void {
  const keys = program
    .command('keys')
    .description('list, create, update, delete and rotate workspace API keys')
    .addHelpText(
      'after',
      `
The workspace comes from --workspace, MAILROOM_WORKSPACE or the profile
(mailroom config set workspace wrk_…).

Examples:
  $ mailroom keys list --all
  $ mailroom keys create --name deploy-bot --save-as deploy
  $ mailroom keys rotate aki_123 --save-as default
  $ mailroom keys delete aki_123 --yes`,
    );
  for (const mod of [list, create, update, del, rotate]) mod.register(keys, ctx);
}

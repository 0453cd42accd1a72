import type { Command } from 'commander';
import type { Context } from '../../context.js';
import * as list from './list.js';
import * as create from './create.js';
import * as update from './update.js';
import * as del from './delete.js';
import * as rotate from './rotate.js';

export function register(program: Command, ctx: Context): void {
  const keys = program.command('keys').description('list, create, update, delete and rotate workspace API keys');
  for (const mod of [list, create, update, del, rotate]) mod.register(keys, ctx);
}

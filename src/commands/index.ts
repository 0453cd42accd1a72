import type { Command } from 'commander';
import type { Context } from '../context.js';
import * as login from './login.js';
import * as logout from './logout.js';
import * as config from './config.js';
import * as profiles from './profiles.js';
import * as check from './check.js';
import * as send from './send.js';
import * as batch from './batch.js';
import * as keys from './keys/index.js';
import * as webhooks from './webhooks/index.js';
import * as sandbox from './sandbox.js';
import * as api from './api.js';
import * as completion from './completion.js';

/** Order here is the order `mailroom --help` lists them. */
export function registerCommands(program: Command, ctx: Context): void {
  for (const mod of [send, batch, check, keys, webhooks, sandbox, login, logout, config, profiles, api, completion]) {
    mod.register(program, ctx);
  }
}

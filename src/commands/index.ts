import type { Command } from 'commander';
import type { Context } from '../context.js';
import * as login from './login.js';
import * as logout from './logout.js';
import * as config from './config.js';
import * as profiles from './profiles.js';
import * as check from './check.js';
import * as doctor from './doctor.js';
import * as whoami from './whoami.js';
import * as send from './send.js';
import * as batch from './batch.js';
import * as lint from './lint.js';
import * as keys from './keys/index.js';
import * as webhooks from './webhooks/index.js';
import * as sandbox from './sandbox/index.js';
import * as api from './api.js';
import * as completion from './completion.js';

/** Top-level command names, in the order `mailroom --help` lists them. */
const COMMANDS = { send, batch, lint, check, doctor, whoami, keys, webhooks, sandbox, login, logout, config, profiles, api, completion } as const;

/**
 * Registers every command, or only `only` when it names one: building the whole tree (~40
 * commands, ~250 options) costs more start-up time than `mailroom check` may spend in all.
 */
export function registerCommands(program: Command, ctx: Context, only?: string): void {
  const picked = only !== undefined && Object.hasOwn(COMMANDS, only) ? [COMMANDS[only as keyof typeof COMMANDS]] : Object.values(COMMANDS);
  for (const mod of picked) mod.register(program, ctx);
}

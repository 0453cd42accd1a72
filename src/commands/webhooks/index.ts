import type { Command } from 'commander';
import type { Context } from '../../context.js';
import * as list from './list.js';
import * as get from './get.js';
import * as create from './create.js';
import * as update from './update.js';
import * as del from './delete.js';
import * as events from './events.js';
import * as verify from './verify.js';
import * as listen from './listen.js';
import * as replay from './replay.js';
import * as sample from './sample.js';

export function register(program: Command, ctx: Context): void {
  const webhooks = program
    .command('webhooks')
    .description('manage webhooks; receive, verify and replay signed deliveries')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom webhooks create --url https://example.com/hooks --event CONTACT_CREATED,CONTACT_UNSUBSCRIBED
  $ mailroom webhooks listen --webhook wh_123 --forward-to http://localhost:3000/webhooks --journal deliveries.ndjson
  $ mailroom webhooks verify --token "$TOKEN" --signature "$SIG" --payload body.json
  $ mailroom webhooks replay --journal deliveries.ndjson --webhook wh_123 --forward-to http://localhost:3000/webhooks`,
    );
  for (const mod of [list, get, create, update, del, events, verify, listen, replay, sample]) mod.register(webhooks, ctx);
}

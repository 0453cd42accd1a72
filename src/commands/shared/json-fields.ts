import type { Command } from 'commander';
import { usageError } from '../../errors.js';

/**
 * The fields each command prints as JSON: the names `--json <fields>` may pick, of the object, or of
 * each item of a list (docs/input-and-output.md). The verb wrapper checks them before the command
 * runs, so a mistyped name costs no request. `null`: the command prints no fields to pick from (a
 * stream of records, raw text, the API's answer as it came): a field list is refused. A test
 * checks that each command's JSON holds no field missing here.
 */
const KEY = ['id', 'displayName', 'role', 'status', 'secretKey', 'createdAt', 'updatedAt'];
const WEBHOOK = ['id', 'displayName', 'url', 'events', 'token', 'status', 'workspaceId', 'createdAt', 'updatedAt'];
const SENT = ['id', 'messageId', 'status', 'to', 'type', 'from', 'subject', 'template', 'groupBy', 'sendAt', 'warning', 'idempotencyKey'];
const REQUEST = ['from', 'fromName', 'to', 'subject', 'html', 'text', 'previewText', 'replyTo', 'contactProperties', 'template', 'variables', 'settings', 'groupBy', 'sendAt', 'idempotencyKey'];
const SANDBOX_EMAIL = [
  'id', 'messageId', 'status', 'type', 'to', 'from', 'fromName', 'subject', 'template', 'variables', 'html', 'text', 'previewText', 'replyTo',
  'contactProperties', 'settings', 'groupBy', 'idempotencyKey', 'sendAt', 'createdAt', 'requestId',
];
const SETTING = ['key', 'value', 'source', 'origin'];
const JOURNAL = [
  'journal', 'link', 'runId', 'input', 'host', 'profile', 'started', 'lastWritten', 'sent', 'refused', 'unsent', 'total', 'finished', 'finishedAt', 'running', 'resume',
];
const LINT = ['ok', 'failOn', 'counts', 'results', 'skipped', 'links'];

export const JSON_FIELDS: Readonly<Record<string, readonly string[] | null>> = {
  send: [...new Set([...SENT, ...REQUEST])],
  batch: [
    'total', 'sent', 'scheduled', 'failed', 'skipped', 'duplicates', 'invalid', 'uncertain', 'unsent', 'durationMs', 'emailsPerSecond', 'runId',
    'journal', 'dryRun', 'interrupted', 'resumed', 'errors', 'report', 'failedFile', 'resume',
  ],
  'batch journals list': JOURNAL,
  'batch journals show': [...JOURNAL, 'refusedEntries'],
  'batch journals prune': ['removed', 'kept', 'dryRun'],
  lint: LINT,
  check: ['status', 'displayName', 'role', 'key', 'keySource', 'keyOrigin', 'baseUrl'],
  doctor: ['ok', 'checks'],
  whoami: [
    'status', 'displayName', 'role', 'profile', 'profileSource', 'profileOrigin', 'key', 'keySource', 'keyOrigin', 'baseUrl', 'baseUrlSource', 'baseUrlOrigin',
    'workspace', 'workspaceSource', 'workspaceOrigin',
  ],
  'keys list': KEY,
  'keys create': KEY,
  'keys update': KEY,
  'keys rotate': KEY,
  'keys delete': [...KEY, 'isDeleted'],
  'webhooks list': WEBHOOK,
  'webhooks get': WEBHOOK,
  'webhooks create': WEBHOOK,
  'webhooks update': WEBHOOK,
  'webhooks delete': [...WEBHOOK, 'isDeleted'],
  'webhooks events': ['event', 'meaning'],
  'webhooks verify': ['valid', 'header', 'reason', 'cause', 'message', 'createdAt', 'bytes'],
  'webhooks listen': null,
  'webhooks replay': null,
  'webhooks sample': null,
  sandbox: null,
  'sandbox emails': SANDBOX_EMAIL,
  // With --checks it prints lint's report.
  'sandbox email': [...SANDBOX_EMAIL, 'inbox', ...LINT],
  'sandbox wait': SANDBOX_EMAIL,
  'sandbox workspace': ['id', 'name', 'emails'],
  'sandbox workspace list': ['id', 'name', 'emails'],
  'sandbox workspace create': ['workspaceId', 'name', 'apiKey', 'baseUrl'],
  'sandbox workspace delete': ['workspaceId', 'isDeleted', 'baseUrl'],
  'sandbox deliveries': [
    'id', 'webhookId', 'event', 'url', 'attempt', 'statusCode', 'error', 'notDelivered', 'durationMs', 'createdAt', 'nextRetryAt', 'resendOf', 'body', 'signature', 'payload',
  ],
  'sandbox deliveries resend': ['resent', 'webhookId', 'event'],
  'sandbox trigger': ['event', 'createdAt', 'data'],
  'sandbox open': null,
  'sandbox env': ['baseUrl', 'apiKey', 'workspaceId'],
  // `login --migrate` prints { moved, configFile }.
  login: ['profile', 'displayName', 'role', 'key', 'baseUrl', 'workspace', 'keyIn', 'configFile', 'moved'],
  logout: ['profile', 'removed', 'from'],
  'config list': SETTING,
  'config get': SETTING,
  'config set': null,
  'config unset': null,
  'config path': ['path'],
  profiles: ['name', 'active', 'apiKey', 'keyIn', 'baseUrl', 'workspace'],
  api: null,
  completion: null,
};

/**
 * The words `--json <word>` takes as a field list wherever it stands: every field name of every
 * command but those that are also a command's operand (`config get --json workspace` gets the
 * workspace setting). A command with no room for the word takes it as its field list anyway
 * (`whoami --json workspace`; program.ts).
 */
export const JSON_FIELD_WORDS: ReadonlySet<string> = new Set(Object.values(JSON_FIELDS).flatMap((f) => f ?? []).filter((f) => f !== 'profile' && f !== 'workspace'));

/**
 * Refuses a `--json` field list the command `path` (`keys list`) cannot honour: a name it does not
 * print, or any list for a command with no fields to pick. One line naming the valid fields, exit 2.
 */
export function checkJsonFields(path: string, fields: readonly string[] | undefined, jq = false): void {
  // --jq filters one JSON document; api's answer is one, the others without fields print a stream or text.
  if (jq && JSON_FIELDS[path] === null && path !== 'api') throw usageError(`--jq: ${path} prints no JSON document to filter; pipe its output to jq instead`);
  if (fields === undefined) return;
  const valid = JSON_FIELDS[path];
  if (valid === undefined) return;
  if (valid === null) throw usageError(`--json ${fields.join(',')}: ${path} prints no fields to pick from; use --json alone${path === 'api' ? ' and pipe the answer to jq' : ''}`);
  const unknown = fields.filter((f) => !valid.includes(f));
  if (unknown.length === 0) return;
  const names = unknown.map((f) => `"${f}"`).join(', ');
  throw usageError(`--json: unknown field${unknown.length > 1 ? 's' : ''} ${names}; valid fields: ${valid.join(', ')}`);
}

/** `keys list` for the command Commander runs for `mailroom keys list`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

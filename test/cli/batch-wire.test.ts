import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { batchWorld } from '../helpers/batch.js';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;
let proxy: RecordingProxy;

batchWorld('mailroom-batch-wire-', (world) => ({ sandbox, dir, env } = world));
beforeEach(async () => {
  proxy = await recordingProxy(sandbox.baseUrl);
});
afterEach(async () => {
  await proxy.close();
});

const FROM = 'ops@example.com';
const DAY = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);

/** Each input line, and the email its request carries (schema order, the run's key last unless it has its own). */
const CASES: Array<[string, (key: string) => Record<string, unknown>]> = [
  ['{"from":"ops@example.com","to":"a@example.com","subject":"A","html":"<p>a</p>"}', (key) => ({ from: FROM, to: 'a@example.com', subject: 'A', html: '<p>a</p>', idempotencyKey: key })],
  ['{"to":"b@example.com","html":"<p>b</p>","subject":"B","from":"ops@example.com"}', (key) => ({ from: FROM, to: 'b@example.com', subject: 'B', html: '<p>b</p>', idempotencyKey: key })],
  ['{"from":"ops@example.com","to":"c@example.com","subject":"C","html":"<p>c</p>","idempotencyKey":"own-c"}', () => ({ from: FROM, to: 'c@example.com', subject: 'C', html: '<p>c</p>', idempotencyKey: 'own-c' })],
  ['{"from":"ops@example.com","to":"d@example.com","subject":"D","html":"<p>d</p>","_error":"an earlier run\'s note"}', (key) => ({ from: FROM, to: 'd@example.com', subject: 'D', html: '<p>d</p>', idempotencyKey: key })],
  ['{"template":"welcome","to":"e@example.com","variables":{"name":"E"}}', (key) => ({ template: 'welcome', to: 'e@example.com', variables: { name: 'E' }, idempotencyKey: key })],
  ['{"template":"welcome","to":"f@example.com"}', (key) => ({ template: 'welcome', to: 'f@example.com', variables: {}, idempotencyKey: key })],
  [
    '{"from":"ops@example.com","to":"g@example.com","subject":"G","html":"<p>g</p>","settings":{"trackOpens":true,"trackClicks":false}}',
    (key) => ({ from: FROM, to: 'g@example.com', subject: 'G', html: '<p>g</p>', settings: { trackClicks: false, trackOpens: true }, idempotencyKey: key }),
  ],
  ['{"to":"h@example.com","subject":"H","html":"<p>h</p>"}', (key) => ({ from: FROM, to: 'h@example.com', subject: 'H', html: '<p>h</p>', idempotencyKey: key })],
  [
    '{"from":"ops@example.com","to":"i@example.com","subject":"caf\\u00e9 \\"quoted\\" \\ud83d\\ude00","html":"<p>\\u2028 \\/ \\u0001</p>","contactProperties":{"plan":"pro","seats":3,"trial":false,"note":null}}',
    (key) => ({ from: FROM, to: 'i@example.com', subject: 'café "quoted" 😀', html: '<p>\u2028 / \u0001</p>', contactProperties: { plan: 'pro', seats: 3, trial: false, note: null }, idempotencyKey: key }),
  ],
  [`{ "from" : "ops@example.com", "to": "j@example.com", "subject": "J", "html": "<p>j</p>", "sendAt": "${DAY}T10:00:00+02:00" }`, (key) => ({ from: FROM, to: 'j@example.com', subject: 'J', html: '<p>j</p>', sendAt: `${DAY}T10:00:00+02:00`, idempotencyKey: key })],
  [`{"from":"ops@example.com","to":"k@example.com","subject":"K","html":"<p>k</p>","sendAt":"${DAY}T10:00+02:00"}`, (key) => ({ from: FROM, to: 'k@example.com', subject: 'K', html: '<p>k</p>', sendAt: `${DAY}T08:00:00.000Z`, idempotencyKey: key })],
];

describe('batch request bodies', () => {
  it.each([
    ['a file', false],
    ['stdin', true],
  ])('are the emails as the schema orders them, with the run keys, byte for byte (input from %s)', async (_label, piped) => {
    const input = join(dir, 'wire.ndjson');
    const text = `${CASES.map(([line]) => line).join('\n')}\n`;
    writeFileSync(input, text);
    const r = await runInProcess(['batch', piped ? '-' : input, '--from', FROM, '--size', '4', '--concurrency', '1', '--json'], { env: { ...env, MAILROOM_BASE_URL: proxy.baseUrl }, ...(piped ? { input: text } : {}) });
    expect(r.stderr, r.stdout).toBe('');
    expect(r.code).toBe(0);
    const { runId, sent } = JSON.parse(r.stdout) as { runId: string; sent: number };
    expect(sent).toBe(CASES.length);
    const emails = CASES.map(([, email], i) => email(`mr-${runId}-${i}`));
    const expected = [emails.slice(0, 4), emails.slice(4, 8), emails.slice(8)].map((chunk) => JSON.stringify({ emails: chunk }));
    const bodies = proxy.seen.filter((s) => s.path === '/v1/emails/batch').map((s) => s.body);
    expect(bodies).toEqual(expected);
  });
});

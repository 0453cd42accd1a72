import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sandbox: TestSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await withSandbox();
  const call = client(sandbox);
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
  for (const name of ['deploy-bot for the production cluster in eu-west-1', 'ci', 'a key whose name is long enough to wrap any table']) {
    await call('POST', `/v1/workspaces/${sandbox.workspaceId}/api-keys`, { displayName: name, role: 'API_USER' });
  }
  const events = ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED', 'CONTACT_DELETED'];
  await call('POST', '/v1/webhooks', { url: 'https://hooks.example.com/mailroom/contact-events', events });
  await call('POST', '/v1/webhooks', { url: 'https://h.example.com/x', events: ['CONTACT_CREATED'] });
});
afterAll(() => sandbox.close());

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

describe.each([80, 200])('on a terminal of %i columns', (columns) => {
  it('keys list: one line per key, none wider than the terminal, ids whole, dates relative', async () => {
    const r = await runInProcess(['keys', 'list', '--no-color'], { env, tty: 'stdout', columns });
    expect(r.code).toBe(0);
    const lines = plain(r.stdout).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +ROLE +STATUS +SECRET +CREATED$/);
    expect(lines).toHaveLength(5); // the header, the sandbox's own key and three more
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
    for (const line of lines.slice(1)) expect(line).toMatch(/^aki_\S+ +.+ +API_USER +ACTIVE +sk_live_…\S* +(just now|\d+ (second|minute)s? ago)$/);
    if (columns === 80) expect(r.stdout).toContain('…  API_USER');
    else expect(r.stdout).toContain('deploy-bot for the production cluster in eu-west-1');
  });

  it('webhooks list: STATUS shown now the sandbox sends it (a column empty in every row is dropped: test/output/table.test.ts); URL and events shortened, not wrapped', async () => {
    const r = await runInProcess(['webhooks', 'list', '--no-color'], { env, tty: 'stdout', columns });
    expect(r.code).toBe(0);
    const lines = plain(r.stdout).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +URL +EVENTS +STATUS +CREATED$/);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
    const wide = lines.find((l) => l.includes('https://hooks.')) as string;
    if (columns === 80) expect(wide).toMatch(/…/);
    else expect(wide).toContain('CONTACT_CREATED, CONTACT_UPDATED, CONTACT_UNSUBSCRIBED, CONTACT_RESUBSCRIBED, CONTACT_DELETED');
  });
});

it('piped, dates stay exact (ISO 8601) in the JSON', async () => {
  const r = await runInProcess(['webhooks', 'list'], { env });
  expect(JSON.parse(r.stdout).items[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
});

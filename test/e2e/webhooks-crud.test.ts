import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, unwrap } from '../helpers/cli.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sandbox: TestSandbox;
let call: ReturnType<typeof client>;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await withSandbox();
  call = client(sandbox);
  env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey };
});
afterAll(async () => {
  await sandbox.close();
});

interface Hook {
  id: string;
  url: string;
  events: string[];
  token?: string;
}

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
const makeHook = async (events = ['CONTACT_CREATED']): Promise<Hook> => (await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/in', events })).body.webhook;
const serverHook = async (id: string) => call('GET', `/v1/webhooks/${id}`);

// A prompt answered on a real terminal; every other webhooks CRUD case runs in-process in
// test/cli/webhooks-crud.test.ts.
describe('webhooks list, get, update, delete: tokens masked', () => {
  it('delete on a terminal asks first', async () => {
    const hook = await makeHook();
    const r = await runCli(['webhooks', 'delete', hook.id, '--no-color'], { env, tty: true, input: [{ after: 'Delete webhook', send: 'y\r' }] });
    expect(r.code).toBe(0);
    // The prompt wraps the question at the terminal's width.
    expect(unwrap(plain(r.stdout))).toContain(`Delete webhook ${hook.id} (http://127.0.0.1:9/in; CONTACT_CREATED)?`);
    expect(plain(r.stdout)).toContain(`Deleted ${hook.id}.`);
    expect((await serverHook(hook.id)).status).toBe(404);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { recordingProxy, type ForcedAnswer, type RecordingProxy } from '../helpers/recording-proxy.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/** `mailroom api` as `gh api`: -f/-F fields, --input, --paginate (--slurp), -i. Exact wire bodies, stdout, stderr, exit codes. */
let sandbox: TestSandbox;
let proxy: RecordingProxy;
let env: Record<string, string>;
let dir: string;
let call: ReturnType<typeof client>;
let lose = false;
let forced: ForcedAnswer | undefined;

beforeAll(async () => {
  sandbox = await withSandbox();
  proxy = await recordingProxy(sandbox.baseUrl, (req) => forced ?? (lose && req.method === 'POST' ? { lose: true } : undefined));
  call = client(sandbox);
  dir = mkdtempSync(join(tmpdir(), 'mailroom-api-gh-'));
  env = { MAILROOM_BASE_URL: proxy.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
  writeFileSync(join(dir, 'body.html'), '<p>From a file</p>\n');
  writeFileSync(join(dir, 'email.json'), JSON.stringify({ from: 'ops@example.com', to: 'b@example.com', subject: 'Input', html: '<p>i</p>' }));
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await sandbox.reset();
  proxy.seen.splice(0);
  lose = false;
  forced = undefined;
});

const mailroom = (args: string[], input?: string) => runInProcess(args, { env, cwd: dir, ...(input === undefined ? {} : { input }) });
const keysPath = () => `/v1/workspaces/${sandbox.workspaceId}/api-keys`;

describe('api -f / -F', () => {
  it('POST: the fields are the JSON body; -f strings, -F typed (numbers, booleans, null, @file), a[b] nests, a[] lists', async () => {
    const r = await mailroom([
      'api', 'POST', '/v1/emails',
      '-f', 'template=welcome', '-f', 'to=a@example.com', '-f', 'groupBy=007', '-F', 'variables[body]=@body.html',
      '-F', 'variables[count]=3', '-F', 'variables[ratio]=-1.5', '-F', 'variables[vip]=true', '-F', 'variables[none]=null',
      '-F', 'variables[code]=007', '-f', 'variables[raw]=true',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(proxy.seen).toHaveLength(1);
    expect(proxy.seen[0]!.method).toBe('POST');
    // -f fields first, then -F, each in the order given.
    expect(proxy.seen[0]!.body).toBe(
      JSON.stringify({
        template: 'welcome', to: 'a@example.com', groupBy: '007',
        variables: { raw: 'true', body: '<p>From a file</p>\n', count: 3, ratio: -1.5, vip: true, none: null, code: '007' },
      }),
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ email: { status: 'SENT', to: 'a@example.com' } });
  });

  it('a key named like an Object method (__proto__, constructor, toString) is a field like any other, sent as given; an integer JSON cannot hold exactly stays text', async () => {
    const r = await mailroom([
      'api', 'POST', '/v1/emails',
      '-f', 'template=welcome', '-f', 'to=a@example.com',
      '-f', 'variables[__proto__][x]=1', '-f', 'variables[constructor]=c', '-f', 'variables[toString]=t',
      '-F', 'variables[big]=99999999999999999999', '-F', 'variables[safe]=9007199254740991',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(proxy.seen[0]!.body).toBe('{"template":"welcome","to":"a@example.com","variables":{"__proto__":{"x":"1"},"constructor":"c","toString":"t","big":"99999999999999999999","safe":9007199254740991}}');
  });

  it('a[] makes a list (webhooks create events[])', async () => {
    const r = await mailroom(['api', 'POST', '/v1/webhooks', '-f', 'url=https://hooks.example.com/in?a=b=c', '-f', 'events[]=CONTACT_CREATED', '-f', 'events[]=CONTACT_DELETED', '--jq', '.webhook.events | join(",")']);
    expect(r).toMatchObject({ code: 0, stdout: 'CONTACT_CREATED,CONTACT_DELETED\n', stderr: '' });
    expect(JSON.parse(proxy.seen[0]!.body)).toEqual({ url: 'https://hooks.example.com/in?a=b=c', events: ['CONTACT_CREATED', 'CONTACT_DELETED'] });
  });

  it('GET: the fields are the query string; with --data or --input, fields go to the query too', async () => {
    const r = await mailroom(['api', 'GET', keysPath(), '-F', 'limit=1', '-f', 'sort=createdAt.asc']);
    expect(r.code).toBe(0);
    expect(proxy.seen.map((s) => s.path)).toEqual([`${keysPath()}?sort=createdAt.asc&limit=1`]);
    const input = await mailroom(['api', 'POST', '/v1/emails', '--input', 'email.json', '-f', 'dry=1']);
    expect(input.code).toBe(0);
    expect(proxy.seen[1]).toMatchObject({ method: 'POST', path: '/v1/emails?dry=1' });
    expect(JSON.parse(proxy.seen[1]!.body)).toEqual({ from: 'ops@example.com', to: 'b@example.com', subject: 'Input', html: '<p>i</p>' });
    const stdin = await mailroom(['api', 'POST', '/v1/emails', '--input', '-'], JSON.stringify({ from: 'ops@example.com', to: 'c@example.com', subject: 'S', html: '<p>s</p>' }));
    expect(stdin.code).toBe(0);
    expect((await sandbox.emails()).map((e) => e.to).sort()).toEqual(['b@example.com', 'c@example.com']);
  });

  it('bad fields and flags that do not go together: one line, exit 2, nothing sent', async () => {
    const cases: Array<[string[], string]> = [
      [['-f', 'novalue'], 'mailroom: -f novalue: expected key=value\n'],
      [['-f', '=x'], 'mailroom: -f =x: expected key=value\n'],
      [['-f', 'a[=x'], 'mailroom: -f a[: a key is a name, a[b] for a nested object, or a[] to add to a list\n'],
      [['-f', 'a=1', '-f', 'a=2'], 'mailroom: a: a is given twice (use a[] to make a list)\n'],
      [['-f', 'a=1', '-f', 'a[b]=2'], 'mailroom: a[b]: a is a value, not an object\n'],
      [['-F', 'html=@missing.html'], expect.stringMatching(/^mailroom: -F html.*missing\.html/) as unknown as string],
      [['--data', '{}', '--input', 'email.json'], 'mailroom: --data and --input both give the request body: give one of them\n'],
      [['--slurp'], 'mailroom: --slurp gathers the pages of --paginate: add --paginate\n'],
      [['--paginate'], 'mailroom: --paginate follows the pages of a list: it needs GET, not POST\n'],
      [['--input', '-', '-F', 'html=@-'], 'mailroom: stdin can be read once: give it to one of --data -, --input - and -F key=@-\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await mailroom(['api', 'POST', '/v1/emails', ...args]);
      expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ args, code: 2, stdout: '', stderr });
    }
    const get = await mailroom(['api', 'GET', keysPath(), '--input', 'email.json']);
    expect(get).toMatchObject({ code: 2, stderr: 'mailroom: --input: a GET request has no body\n' });
    const nested = await mailroom(['api', 'GET', keysPath(), '-f', 'a[b]=1']);
    expect(nested).toMatchObject({ code: 2, stderr: 'mailroom: -f/-F a: a nested field goes in a request body; a query string holds plain values\n' });
    expect(proxy.seen).toEqual([]);
  });

  it('a POST whose answer is lost: not retried, and the hint names the fields as what to send again', async () => {
    lose = true;
    const r = await mailroom(['api', 'POST', '/v1/emails', '-f', 'from=ops@example.com', '-f', 'to=a@example.com', '-f', 'subject=Hi', '-f', 'html=<p>x</p>', '--max-retries', '3']);
    expect(r.code).toBe(6);
    expect(proxy.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
    expect(r.stderr).toContain('\n  an "idempotencyKey" in the -f/-F fields makes sending it again safe: the API sends the email at most once per key\n');
    lose = false;
    const keyed = await mailroom(['api', 'POST', '/v1/emails', '-f', 'from=ops@example.com', '-f', 'to=a@example.com', '-f', 'subject=Hi', '-f', 'html=<p>x</p>', '-f', 'idempotencyKey=k1']);
    expect(keyed.code).toBe(0);
  });
});

describe('api --paginate', () => {
  async function sixKeys(): Promise<string[]> {
    for (let i = 1; i <= 5; i++) await call('POST', keysPath(), { displayName: `k${i}`, role: 'API_USER' });
    const all = JSON.parse((await mailroom(['keys', 'list', '--all', '--json'])).stdout) as { items: Array<{ id: string }> };
    proxy.seen.splice(0);
    return all.items.map((k) => k.id);
  }

  it('follows hasMore and startAt: one line per page (NDJSON), every key once; --slurp: one array of the pages', async () => {
    const ids = await sixKeys();
    expect(ids).toHaveLength(6);
    const r = await mailroom(['api', 'GET', keysPath(), '-F', 'limit=4', '--paginate']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const pages = lines.map((l) => JSON.parse(l) as { apiKeys: { items: Array<{ id: string; secretKey: string }>; hasMore: boolean; startAt: string | null } });
    expect(pages.map((p) => p.apiKeys.hasMore)).toEqual([true, false]);
    expect(pages.flatMap((p) => p.apiKeys.items.map((k) => k.id)).sort()).toEqual([...ids].sort());
    expect(proxy.seen.map((s) => s.path)).toEqual([`${keysPath()}?limit=4`, `${keysPath()}?limit=4&startAt=${encodeURIComponent(pages[0]!.apiKeys.startAt!)}`]);
    expect(r.stdout).not.toContain(sandbox.apiKey);

    const slurped = await mailroom(['api', 'GET', keysPath(), '-F', 'limit=4', '--paginate', '--slurp']);
    expect(slurped.code).toBe(0);
    expect(JSON.parse(slurped.stdout)).toEqual(pages);

    const jq = await mailroom(['api', 'GET', keysPath(), '-F', 'limit=4', '--paginate', '--jq', '.apiKeys.items[].id']);
    expect(jq.stdout.trimEnd().split('\n').sort()).toEqual([...ids].sort());
    const slurpJq = await mailroom(['api', 'GET', keysPath(), '-F', 'limit=4', '--paginate', '--slurp', '--jq', 'map(.apiKeys.items | length) | add']);
    expect(slurpJq.stdout).toBe('6\n');
  });

  it('into a reader that waits: the next page is asked for only once the last one was taken', async () => {
    await sixKeys();
    const { fakeContext } = await import('../helpers/context.js');
    const { run } = await import('../../src/run.js');
    const fake = fakeContext({ env, cwd: dir });
    const held: Array<() => void> = [];
    let reading = false;
    let text = '';
    fake.ctx.io.out = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _enc, callback) {
        text += chunk.toString();
        if (reading) callback();
        else held.push(callback);
      },
    });
    const done = run(['api', 'GET', keysPath(), '-F', 'limit=1', '--paginate'], fake.ctx);
    for (let i = 0; i < 20 && proxy.seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    // The first page sits in the pipe: no second request yet.
    expect(proxy.seen).toHaveLength(1);
    reading = true;
    for (const callback of held.splice(0)) callback();
    expect(await done).toBe(0);
    const lines = text.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(proxy.seen).toHaveLength(lines.length);
  });

  it('a list without pages (webhooks) is one line; an answer that is not a list: exit 2', async () => {
    const r = await mailroom(['api', 'GET', '/v1/webhooks', '--paginate']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ webhooks: { items: expect.any(Array), hasMore: false } });
    expect(proxy.seen).toHaveLength(1);
    const notList = await mailroom(['api', 'GET', '/v1/api-keys/check', '--paginate']);
    expect(notList.code).toBe(2);
    expect(notList.stderr).toBe('mailroom: --paginate: /v1/api-keys/check did not answer with a list ({ items, hasMore }); it lists nothing to follow\n');
  });
});

describe('api -i', () => {
  it('the status line and headers, a blank line, then the body; secrets masked', async () => {
    const r = await mailroom(['api', 'GET', keysPath(), '-i']);
    expect(r.code).toBe(0);
    const [head, body] = r.stdout.split('\n\n', 2) as [string, string];
    const lines = head.split('\n');
    expect(lines[0]).toBe('HTTP 200 OK');
    expect(lines).toContain('content-type: application/json; charset=utf-8');
    expect(lines.some((l) => /^x-request-id: req_\w+$/.test(l))).toBe(true);
    expect(JSON.parse(body)).toMatchObject({ apiKeys: { items: expect.any(Array) } });
    expect(r.stdout).not.toContain(sandbox.apiKey);
    expect(r.stdout).toContain('sk_live_…');
    const both = await mailroom(['api', 'GET', keysPath(), '-i', '--paginate']);
    expect(both).toMatchObject({ code: 2, stdout: '', stderr: 'mailroom: --include and --paginate: the headers would break the JSON lines; give one of them\n' });
  });

  // As gh api -i and curl -i: the answer is shown whatever its status; the exit code says the error.
  it('an error answer (404): its status line, headers and body on stdout; the error line on stderr; exit 4', async () => {
    const r = await mailroom(['api', 'GET', '/v1/webhooks/wh_doesnotexist', '-i']);
    expect(r.code).toBe(4);
    const [head, body] = r.stdout.split('\n\n', 2) as [string, string];
    const lines = head.split('\n');
    expect(lines[0]).toBe('HTTP 404 Not Found');
    expect(lines).toContain('content-type: application/json; charset=utf-8');
    const requestId = lines.find((l) => l.startsWith('x-request-id: '))?.slice('x-request-id: '.length);
    expect(requestId).toMatch(/^req_\w+$/);
    expect(JSON.parse(body)).toMatchObject({ statusCode: 404 });
    expect(r.stderr).toMatch(/^mailroom: API 404 Not Found/);
    expect(r.stderr).toContain(`request id: ${requestId}`);
    // Without -i, stdout stays empty, as before.
    expect((await mailroom(['api', 'GET', '/v1/webhooks/wh_doesnotexist'])).stdout).toBe('');
  });

  it('a 401 with a wrong key: the answer shown, exit 3, the key never printed', async () => {
    const wrong = 'sk_live_wrongwrongwrongwrong1234';
    const r = await runInProcess(['api', 'GET', '/v1/webhooks', '-i'], { env: { ...env, MAILROOM_API_KEY: wrong }, cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n')[0]).toBe('HTTP 401 Unauthorized');
    expect(r.stdout + r.stderr).not.toContain(wrong);
  });

  it('secrets in the headers of an error answer are masked; a 5xx exits 6', async () => {
    const token = 'wht_echoedtokenechoedtoken0001';
    forced = { status: 500, body: { statusCode: 500, error: 'Internal Server Error', message: `boom ${sandbox.apiKey}` }, headers: { 'x-echo': `key ${sandbox.apiKey}`, 'x-webhook-token': token, 'set-cookie': 'session=abcdef123456' } };
    const r = await mailroom(['api', 'POST', '/v1/webhooks', '-d', JSON.stringify({ url: 'http://127.0.0.1:9/h', events: ['email.sent'], token }), '-i', '--max-retries', '0']);
    expect(r.code).toBe(6);
    const [head, body] = r.stdout.split('\n\n', 2) as [string, string];
    const lines = head.split('\n');
    expect(lines[0]).toBe('HTTP 500 Internal Server Error');
    expect(lines).toContain('x-request-id: req_forced');
    expect(lines.find((l) => l.startsWith('x-webhook-token: '))).toBe(`x-webhook-token: ${token.slice(0, 4)}…${token.slice(-4)}`);
    expect(lines.find((l) => l.startsWith('set-cookie: '))).not.toContain('abcdef123456');
    expect(lines.find((l) => l.startsWith('x-echo: '))).toBe(`x-echo: key sk_live_…${sandbox.apiKey.slice(-4)}`);
    expect(JSON.parse(body)).toMatchObject({ statusCode: 500 });
    expect(r.stdout + r.stderr).not.toContain(sandbox.apiKey);
    expect(r.stdout + r.stderr).not.toContain(token);
  });
});

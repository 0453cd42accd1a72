import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runInProcess, startInProcess, type InProcessCommand } from '../helpers/context.js';

// `mailroom sandbox` and `sandbox trigger` in-process: the ready line, the banner, the API it serves,
// faults from the config file and flags, bad input. SIGTERM, a restart from --data and one sandbox per
// --data file across processes are in test/e2e/sandbox-cli.test.ts.

interface Ready {
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
}

interface Running {
  command: InProcessCommand;
  ready: Ready;
}

/** Starts `mailroom sandbox ... --json` in-process and resolves with the one JSON line it prints when ready. */
async function startSandboxCommand(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const command = startInProcess(['sandbox', '--port', '0', '--json', ...args], { env: { NO_COLOR: '1', ...env } });
  const ready = JSON.parse(await command.waitForLine(() => true, 20_000)) as Ready;
  return { command, ready };
}

const run = (args: string[], env: Record<string, string> = {}) => runInProcess(args, { env: { NO_COLOR: '1', ...env } });

describe('mailroom sandbox --json', () => {
  let sandbox: Running;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-cli-'));
    sandbox = await startSandboxCommand(['--api-key', 'sk_live_cliTestKey0001', '--data', join(dir, 'state.json')]);
  });
  afterAll(async () => {
    await sandbox.command.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('prints exactly one JSON line with baseUrl, apiKey and workspaceId; usage on stderr', async () => {
    const lines = sandbox.command.stdout().split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(Object.keys(JSON.parse(lines[0]!)).sort()).toEqual(['apiKey', 'baseUrl', 'workspaceId']);
    expect(sandbox.ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.ready.apiKey).toBe('sk_live_cliTestKey0001');
    expect(sandbox.ready.workspaceId).toMatch(/^wrk_/);
    expect(await sandbox.command.waitForErrLine((l) => l.includes('export '))).toContain(
      `export MAILROOM_BASE_URL=${sandbox.ready.baseUrl} MAILROOM_API_KEY=sk_live_cliTestKey0001 MAILROOM_WORKSPACE=${sandbox.ready.workspaceId}`,
    );
  });

  test('with the banner\'s exports, the next `keys list` works (the workspace is exported too)', async () => {
    await sandbox.command.waitForErrLine((l) => l.includes('export '));
    const line = /export (.+)/.exec(sandbox.command.stderr())?.[1] ?? '';
    const env = Object.fromEntries(line.split(' ').map((kv) => kv.split('=') as [string, string]));
    const r = await runInProcess(['keys', 'list', '--json'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain('"aki_');
  });

  test('the printed key works against the printed URL', async () => {
    const res = await fetch(`${sandbox.ready.baseUrl}/v1/api-keys/check`, { headers: { authorization: `Bearer ${sandbox.ready.apiKey}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'SUCCEED', displayName: 'Sandbox key', role: 'API_USER' });
  });

  test('sandbox trigger fires an event that a subscribed receiver gets, signed; prints the envelope as JSON when piped', async () => {
    const bodies: { sig: string | undefined; body: string }[] = [];
    let arrived: () => void = () => undefined;
    const delivered = new Promise<void>((r) => (arrived = r));
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push({ sig: req.headers['x-smashsend-signature'] as string | undefined, body });
        res.end();
        arrived();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const hookRes = await fetch(`${sandbox.ready.baseUrl}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.ready.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, events: ['CONTACT_UNSUBSCRIBED'] }),
      });
      const { webhook } = (await hookRes.json()) as { webhook: { token: string } };

      const res = await run(['sandbox', 'trigger', 'CONTACT_UNSUBSCRIBED', '--email', 'ada@customer.test'], { MAILROOM_BASE_URL: sandbox.ready.baseUrl });
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const envelope = JSON.parse(res.stdout);
      expect(envelope).toMatchObject({ event: 'CONTACT_UNSUBSCRIBED', data: { contact: { email: 'ada@customer.test', properties: { status: 'UNSUBSCRIBED' } } } });

      await delivered;
      expect(bodies.length).toBe(1);
      expect(JSON.parse(bodies[0]!.body)).toEqual(envelope);
      expect(bodies[0]!.sig).toBe(createHmac('sha256', webhook.token).update(bodies[0]!.body).digest('hex'));
    } finally {
      server.close();
    }
  });

  test('--base-url wins over MAILROOM_BASE_URL for trigger', async () => {
    const res = await run(['sandbox', 'trigger', 'WORKSPACE_TEAM_MEMBER_JOINED', '--base-url', sandbox.ready.baseUrl], { MAILROOM_BASE_URL: 'http://127.0.0.1:1' });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).data.workspace.id).toBe(sandbox.ready.workspaceId);
  });
});

describe('mailroom sandbox: latency faults from the config file and flags', () => {
  test('faults.latencyMs in --config delays the answer after the work; --latency-before delays the work', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-latency-'));
    const config = join(dir, 'sandbox.json');
    await writeFile(config, JSON.stringify({ faults: { latencyMs: 2000 } }));
    const sb = await startSandboxCommand(['--config', config, '--latency-before', '500']);
    try {
      const started = Date.now();
      const gaveUp = await fetch(`${sb.ready.baseUrl}/v1/emails`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.ready.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: 'a@example.com', to: 'late@customer.test', subject: 's', html: 'h', idempotencyKey: 'late-1' }),
        signal: AbortSignal.timeout(1500),
      }).catch((e: Error) => e);
      expect((gaveUp as Error).name).toBe('TimeoutError');
      const { items } = (await (await fetch(`${sb.ready.baseUrl}/_sandbox/emails`)).json()) as { items: { idempotencyKey: string; createdAt: string }[] };
      expect(items.map((e) => e.idempotencyKey)).toEqual(['late-1']);
      expect(Date.parse(items[0]!.createdAt) - started).toBeGreaterThanOrEqual(490);
    } finally {
      await sb.command.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('mailroom sandbox --retain', () => {
  test('keeps the newest n emails; the total counts every one', async () => {
    const sb = await startSandboxCommand(['--retain', '2']);
    try {
      const emails = [1, 2, 3].map((n) => ({ from: 'a@example.com', to: `u${n}@customer.test`, subject: 's', html: 'h' }));
      const res = await fetch(`${sb.ready.baseUrl}/v1/emails/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.ready.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ emails }),
      });
      expect(res.status).toBe(200);
      const { items, total } = (await (await fetch(`${sb.ready.baseUrl}/_sandbox/emails`)).json()) as { items: { to: string }[]; total: number };
      expect(items.map((e) => e.to)).toEqual(['u2@customer.test', 'u3@customer.test']);
      expect(total).toBe(3);
    } finally {
      await sb.command.stop();
    }
  });
});

describe('mailroom sandbox: bad input', () => {
  test('an unknown event exits 2 before any request', async () => {
    const res = await run(['sandbox', 'trigger', 'CONTACT_EXPLODED', '--base-url', 'http://127.0.0.1:1']);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^mailroom: unknown event CONTACT_EXPLODED \(did you mean CONTACT_UPDATED or CONTACT_DELETED\?\); valid: CONTACT_CREATED, [^\n]*\n$/);
  });

  test('no sandbox at the address exits 6 with one line and a hint', async () => {
    const res = await run(['sandbox', 'trigger', 'CONTACT_CREATED', '--base-url', 'http://127.0.0.1:1']);
    expect(res.code).toBe(6);
    expect(res.stderr).toContain('cannot reach a sandbox at http://127.0.0.1:1');
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  test.each([
    [500, 6],
    [403, 3],
    [400, 4],
  ])('a sandbox answering %i: exit %i with its message', async (status, exit) => {
    const server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: status, error: 'x', message: 'no luck' })));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const res = await run(['sandbox', 'trigger', 'CONTACT_CREATED', '--base-url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`]);
      expect(res.code).toBe(exit);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe(`mailroom: the sandbox answered ${status}: no luck\n`);
    } finally {
      server.close();
    }
  });

  test('a bad config file exits 2 with one line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-cli-'));
    try {
      const file = join(dir, 'config.json');
      await writeFile(file, JSON.stringify({ rateLimit: 'fast', colour: 'red' }));
      const res = await run(['sandbox', '--port', '0', '--config', file]);
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toContain('rateLimit');
      await writeFile(file, '{nope');
      const notJson = await run(['sandbox', '--port', '0', '--config', file]);
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toContain('not valid JSON');
      const missing = await run(['sandbox', '--port', '0', '--config', join(dir, 'missing.json')]);
      expect(missing.code).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('--retain takes a whole number from 1, else exits 2 with one line; retain in --config likewise', async () => {
    for (const bad of ['0', '-3', '2.5', 'many']) {
      const res = await run(['sandbox', '--port', '0', '--retain', bad]);
      expect(res.code, bad).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr.trim().split('\n'), bad).toHaveLength(1);
      expect(res.stderr).toContain('--retain');
    }
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-cli-'));
    try {
      const file = join(dir, 'config.json');
      await writeFile(file, JSON.stringify({ retain: 0 }));
      const res = await run(['sandbox', '--port', '0', '--config', file]);
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toContain('retain');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('an API key that cannot travel in a Bearer header exits 2', async () => {
    const res = await run(['sandbox', '--port', '0', '--api-key', 'has space']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^mailroom: the API key must be 8 to 256 characters without spaces/);
  });

  test('a port in use exits 2 with a hint to use --port 0', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const res = await run(['sandbox', '--port', String(port)]);
      expect(res.code).toBe(2);
      expect(res.stderr).toBe(`mailroom: port ${port} is already in use\n  pass --port 0 to pick a free port\n`);
    } finally {
      blocker.close();
    }
  });
});

import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/** The receiver snippet of docs/webhooks.md, run as written: a newcomer copies it, so it must be right. */
const GUIDE = readFileSync(resolve(import.meta.dirname, '../../docs/webhooks.md'), 'utf8');
const snippet = /<!-- example: tested-by test\/e2e\/webhooks-listen-readme\.test\.ts -->\n```js\n([\s\S]*?)```/.exec(GUIDE)?.[1];
const token = 'wht_readmeSnippetToken42';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

describe('the receiver snippet of docs/webhooks.md', () => {
  let url: string;
  let stdout = '';
  let child: ReturnType<typeof spawn>;

  beforeAll(async () => {
    expect(snippet, 'docs/webhooks.md has the marked receiver snippet').toBeDefined();
    const file = join(mkdtempSync(join(tmpdir(), 'mailroom-readme-')), 'receiver.mjs');
    writeFileSync(file, snippet!);
    const port = await freePort();
    url = `http://127.0.0.1:${port}/webhooks`;
    child = spawn(process.execPath, [file], { env: { PATH: process.env.PATH ?? '', WEBHOOK_TOKEN: token, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  });
  afterAll(() => {
    child.kill();
  });

  it('accepts a delivery signed by mailroom webhooks sample and refuses a changed or re-serialised one', async () => {
    // Ready once it answers; an empty unsigned body must already be refused.
    await expect.poll(async () => (await fetch(url, { method: 'POST', body: '' }).catch(() => undefined))?.status, { timeout: 10_000 }).toBe(401);
    const sample = await runCli(['webhooks', 'sample', 'CONTACT_CREATED', '--email', 'ada@example.com', '--token', token]);
    expect(sample.code).toBe(0);
    const signature = /^X-Smashsend-Signature: ([0-9a-f]{64})$/m.exec(sample.stderr)![1]!;
    expect(signature).toBe(createHmac('sha256', token).update(sample.stdout).digest('hex'));
    const post = (body: string, sig = signature) => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-smashsend-signature': sig } });
    expect((await post(sample.stdout)).status).toBe(200);
    await expect.poll(() => stdout).toContain('CONTACT_CREATED');
    expect(stdout).toContain('ada@example.com');
    expect((await post(sample.stdout.replace('ada@', 'eve@'))).status).toBe(401);
    expect((await post(JSON.stringify(JSON.parse(sample.stdout), null, 2))).status).toBe(401);
    expect((await post(sample.stdout, 'nothex')).status).toBe(401);

    // The same delivery again (a replayed capture, or the service retrying): answered 200, handled once.
    expect((await post(sample.stdout)).status).toBe(200);
    const other = await runCli(['webhooks', 'sample', 'CONTACT_DELETED', '--email', 'bob@example.com', '--token', token]);
    expect((await post(other.stdout, createHmac('sha256', token).update(other.stdout).digest('hex'))).status).toBe(200);
    await expect.poll(() => stdout).toContain('CONTACT_DELETED');
    expect(stdout.match(/CONTACT_CREATED/g)).toHaveLength(1);
  });
});

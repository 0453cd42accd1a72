import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { tempConfigDir } from '../helpers/cli.js';
import { runInProcess, type InProcessResult } from '../helpers/context.js';

/**
 * Runs the commands users run, all with --verbose (request and response logs on stderr), and looks
 * for secrets in everything printed. The only allowed sightings are the one-time displays of a
 * newly created key (keys create) and webhook token (webhooks create), on stdout.
 */
let sandbox: TestSandbox;
let dir: string;
const MY_TOKEN = 'wht_mytokenmytokenmytoken0042';

beforeAll(async () => {
  sandbox = await withSandbox();
  dir = tempConfigDir();
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  name: string;
  result: InProcessResult;
}

describe('--verbose never leaks a secret', () => {
  it('across check, config, login, send, api, keys and webhooks commands', async () => {
    const env = { MAILROOM_BASE_URL: sandbox.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId };
    const runs: Run[] = [];
    const run = async (name: string, args: string[], extra: { env?: Record<string, string>; input?: string } = {}) => {
      const result = await runInProcess([...args, '--verbose'], { configDir: dir, env: { ...env, ...extra.env }, ...(extra.input === undefined ? {} : { input: extra.input }) });
      runs.push({ name, result });
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      return result;
    };

    await run('check', ['check']);
    await run('check (MAILROOM_DEBUG=1, terminal-free)', ['check', '--json'], { env: { MAILROOM_DEBUG: '1' } });
    await run('login', ['login', '--api-key-stdin', '--profile', 'saved'], { input: sandbox.apiKey });
    await run('config list', ['config', 'list', '--profile', 'saved']);
    await run('send', ['send', '--from', 'you@example.com', '--to', 'friend@example.com', '--subject', 'Hi', '--html', '<p>Hi</p>']);
    await run('api', ['api', 'GET', '/v1/api-keys/check']);
    await run('keys list', ['keys', 'list']);
    const created = await run('keys create', ['keys', 'create', '--name', 'temp', '--json']);
    const newKey = JSON.parse(created.stdout) as { id: string; secretKey: string };
    expect(newKey.secretKey).toMatch(/^sk_live_/);
    await run('keys update', ['keys', 'update', newKey.id, '--name', 'temp2']);
    await run('keys list again', ['keys', 'list', '--all']);
    await run('check with the new key', ['check'], { env: { MAILROOM_API_KEY: newKey.secretKey } });
    await run('keys delete', ['keys', 'delete', newKey.id, '--yes']);
    const toRotate = JSON.parse((await run('keys create (to rotate)', ['keys', 'create', '--name', 'rot', '--json'])).stdout) as { id: string; secretKey: string };
    const rotated = await run('keys rotate', ['keys', 'rotate', toRotate.id, '--save-as', 'rotated', '--json', '--yes']);
    const rotatedKey = JSON.parse(rotated.stdout) as { secretKey: string };
    expect(rotatedKey.secretKey).toMatch(/^sk_live_/);
    await run('check with the rotated profile', ['check', '--profile', 'rotated'], { env: { MAILROOM_API_KEY: '' } });
    const hook = await run('webhooks create (own token)', ['webhooks', 'create', '--url', 'http://127.0.0.1:9/hook', '--event', 'CONTACT_CREATED', '--token', MY_TOKEN, '--json']);
    const hookId = (JSON.parse(hook.stdout) as { id: string }).id;
    const generated = await run('webhooks create (generated token)', ['webhooks', 'create', '--url', 'http://127.0.0.1:9/other', '--event', 'CONTACT_DELETED', '--json']);
    const generatedToken = (JSON.parse(generated.stdout) as { token: string }).token;
    expect(generatedToken).toMatch(/^wht_/);
    await run('webhooks get', ['webhooks', 'get', hookId]);
    await run('webhooks list', ['webhooks', 'list']);
    await run('api webhook get', ['api', 'GET', `/v1/webhooks/${hookId}`]);
    await run('webhooks update', ['webhooks', 'update', hookId, '--event', 'CONTACT_DELETED']);
    await run('webhooks delete', ['webhooks', 'delete', hookId, '--yes']);

    // The logs are really there: every API command logged its requests and responses.
    for (const { name, result } of runs.filter((r) => !r.name.startsWith('config'))) {
      expect(result.stderr, name).toMatch(/^→ (GET|POST|DELETE) http:\/\/127\.0\.0\.1:\d+\/v1\//m);
      expect(result.stderr, name).toMatch(/^← \d{3} in \d+ ms/m);
    }

    const allowed: Record<string, string[]> = {
      'keys create': [newKey.secretKey],
      'keys create (to rotate)': [toRotate.secretKey],
      'keys rotate': [rotatedKey.secretKey],
      'webhooks create (own token)': [MY_TOKEN],
      'webhooks create (generated token)': [generatedToken],
    };
    for (const { name, result } of runs) {
      for (const secret of [sandbox.apiKey, newKey.secretKey, toRotate.secretKey, rotatedKey.secretKey, MY_TOKEN, generatedToken]) {
        expect(result.stderr.includes(secret), `${name} leaked ${secret.slice(0, 8)}… on stderr`).toBe(false);
        if (!allowed[name]?.includes(secret)) expect(result.stdout.includes(secret), `${name} leaked ${secret.slice(0, 8)}… on stdout`).toBe(false);
      }
    }
    // And the one-time displays did show the secret, once.
    expect(created.stdout.split(newKey.secretKey)).toHaveLength(2);
  });
});

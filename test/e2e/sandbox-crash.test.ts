import { type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnCli } from '../helpers/cli.js';

interface Running {
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  exited: Promise<void>;
}

const API_KEY = 'sk_live_crash_test_key';

function start(dataFile: string, env: Record<string, string> = {}): Promise<Running> {
  const child = spawnCli(['sandbox', '--port', '0', '--json', '--quiet', '--data', dataFile, '--api-key', API_KEY], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) {
        const ready = JSON.parse(out.split('\n')[0]!) as { baseUrl: string; apiKey: string };
        resolve({ child, ...ready, exited });
      }
    });
    void exited.then(() => reject(new Error(`sandbox exited before it was ready: ${err}`)));
  });
}

const email = (key: string) => ({ from: 'crash@example.com', to: `${key}@customer.test`, subject: `Order ${key}`, html: `<p>${key}</p>`, idempotencyKey: key });

async function postBatch(agent: Agent, sb: Running, keys: string[], apiKey = sb.apiKey): Promise<{ successful: { id: string }[]; failed: unknown[] }> {
  const res = await request(`${sb.baseUrl}/v1/emails/batch`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ emails: keys.map(email) }),
  });
  const body = (await res.body.json()) as { emails: { successful: { id: string }[]; failed: unknown[] } };
  if (res.statusCode !== 200) throw new Error(`batch answered ${res.statusCode}`);
  return body.emails;
}

async function inbox(sb: Running, workspace?: string): Promise<{ id: string; idempotencyKey?: string }[]> {
  const res = await request(`${sb.baseUrl}/_sandbox/emails${workspace === undefined ? '' : `?workspace=${workspace}`}`);
  return ((await res.body.json()) as { items: { id: string; idempotencyKey?: string }[] }).items;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailroom-crash-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('sandbox --data under SIGKILL', () => {
  test('every email answered 2xx survives a SIGKILL mid-batch, with its idempotency key: a resume sends nothing twice and loses nothing', async () => {
    const dataFile = join(dir, 'state.json');
    const acked = new Map<string, string>();
    // Each acknowledged email's whole answer: a resume must answer it again, byte for byte.
    const answers = new Map<string, string>();
    const attempted: string[] = [];
    let next = 0;

    for (let round = 0; round < 3; round++) {
      const sb = await start(dataFile);
      // What survived the previous kills is all there at each restart.
      const ids = new Set((await inbox(sb)).map((e) => e.id));
      const gone = [...acked].filter(([, id]) => !ids.has(id));
      expect(gone.length, `after kill ${round}: ${gone.length} of ${acked.size} acknowledged emails are gone, e.g. ${gone.slice(0, 3).join(' ')}`).toBe(0);

      const agent = new Agent({ connections: 8 });
      let stop = false;
      // Kill it at a different point each round, while batches are in flight: once this many are acknowledged.
      const killAt = acked.size + 1000 + round * 600;
      let reached: () => void = () => undefined;
      const enough = new Promise<void>((r) => (reached = r));
      const worker = async () => {
        while (!stop) {
          const keys = Array.from({ length: 50 }, () => `crash-${next++}`);
          attempted.push(...keys);
          let answer;
          try {
            answer = await postBatch(agent, sb, keys);
          } catch {
            return;
          }
          expect(answer.failed).toEqual([]);
          answer.successful.forEach((r, i) => {
            acked.set(keys[i]!, r.id);
            answers.set(keys[i]!, JSON.stringify(r));
          });
          if (acked.size >= killAt) reached();
        }
      };
      const workers = Array.from({ length: 8 }, worker);
      await Promise.race([
        enough,
        Promise.all(workers).then(() => {
          throw new Error(`round ${round}: every worker stopped before ${killAt} emails were acknowledged`);
        }),
      ]);
      sb.child.kill('SIGKILL');
      await sb.exited;
      stop = true;
      await Promise.all(workers);
      await agent.close();
    }
    // A temp file left by a write the kill interrupted is removed at start.
    await writeFile(`${dataFile}.99999.tmp`, '{"partial');

    const sb = await start(dataFile);
    try {
      expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      const caught = await inbox(sb);
      const byKey = new Map(caught.map((e) => [e.idempotencyKey!, e.id]));
      const lost = [...acked].filter(([key, id]) => byKey.get(key) !== id);
      expect(lost.length, `acknowledged but lost: ${lost.slice(0, 5).join(' ')}`).toBe(0);
      expect(acked.size).toBeGreaterThan(3000);

      // The resume: every key once more. The acknowledged ones answer their first result.
      const agent = new Agent({ connections: 4 });
      for (let i = 0; i < attempted.length; i += 50) {
        const keys = attempted.slice(i, i + 50);
        const answer = await postBatch(agent, sb, keys);
        answer.successful.forEach((r, j) => {
          const first = answers.get(keys[j]!);
          if (first !== undefined) expect(JSON.stringify(r), keys[j]).toBe(first);
        });
      }
      await agent.close();
      const after = await inbox(sb);
      expect(after.length).toBe(attempted.length);
      expect(new Set(after.map((e) => e.idempotencyKey)).size).toBe(attempted.length);
    } finally {
      sb.child.kill('SIGTERM');
      await sb.exited;
    }
  }, 120_000);

  test('an answer leaves only after the fsync that covers it: on a disk that keeps a write only once synced, a SIGKILL right after the answers loses none of them, in any workspace', async () => {
    const dataFile = join(dir, 'slow-fsync.json');
    const disk = fileURLToPath(new URL('../fixtures/fsync-only-disk.mjs', import.meta.url));
    // Each flush takes 300 ms: requests arriving meanwhile share the next one (group commit).
    const sb = await start(dataFile, { NODE_OPTIONS: `--import ${disk}`, MAILROOM_TEST_FSYNC_MS: '300' });
    const agent = new Agent({ connections: 6 });
    const acked = new Map<string, string>();
    // A workspace made for a test worker: its answer, and every batch sent with its key, is as durable as the first's.
    const made = (await (await request(`${sb.baseUrl}/_sandbox/workspaces`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: '{"name":"worker"}' })).body.json()) as { workspaceId: string; apiKey: string };
    try {
      // Six batches at once, then three more one after another: the last answer is followed at once by the kill.
      // The odd ones go to the workspace made for a worker.
      const batches = Array.from({ length: 9 }, (_, b) => Array.from({ length: 50 }, (_, i) => `fsync-${b}-${i}`));
      const keyOf = (keys: string[]) => (batches.indexOf(keys) % 2 === 1 ? made.apiKey : sb.apiKey);
      const record = (keys: string[], answer: { successful: { id: string }[]; failed: unknown[] }) => {
        expect(answer.failed).toEqual([]);
        answer.successful.forEach((r, i) => acked.set(keys[i]!, r.id));
      };
      await Promise.all(batches.slice(0, 6).map(async (keys) => record(keys, await postBatch(agent, sb, keys, keyOf(keys)))));
      for (const keys of batches.slice(6)) record(keys, await postBatch(agent, sb, keys, keyOf(keys)));
    } finally {
      sb.child.kill('SIGKILL');
      await sb.exited;
      await agent.close();
    }
    expect(acked.size).toBe(450);

    const again = await start(dataFile);
    try {
      const inFirst = await inbox(again);
      const inMade = await inbox(again, made.workspaceId);
      expect([inFirst.length, inMade.length]).toEqual([250, 200]);
      const byKey = new Map([...inFirst, ...inMade].map((e) => [e.idempotencyKey!, e.id]));
      const lost = [...acked].filter(([key, id]) => byKey.get(key) !== id);
      expect(lost.length, `acknowledged but lost: ${lost.slice(0, 5).join(' ')}`).toBe(0);
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  }, 60_000);

  test('a workspace deleted stays deleted: on a disk that keeps a write only once synced, a SIGKILL right after the DELETE answered 200 brings back neither it nor its key', async () => {
    const dataFile = join(dir, 'deleted-workspace.json');
    const disk = fileURLToPath(new URL('../fixtures/fsync-only-disk.mjs', import.meta.url));
    const sb = await start(dataFile, { NODE_OPTIONS: `--import ${disk}`, MAILROOM_TEST_FSYNC_MS: '300' });
    const agent = new Agent({ connections: 2 });
    const control = async (method: 'POST' | 'DELETE', path: string) => {
      const res = await request(`${sb.baseUrl}${path}`, { method, dispatcher: agent, headers: { 'content-type': 'application/json' }, body: '{}' });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, string> };
    };
    let gone: { workspaceId: string; apiKey: string };
    let kept: { workspaceId: string; apiKey: string };
    try {
      gone = (await control('POST', '/_sandbox/workspaces')).body as typeof gone;
      kept = (await control('POST', '/_sandbox/workspaces')).body as typeof kept;
      // Its emails are journaled before its deletion: they replay, then the deletion drops them.
      await postBatch(agent, sb, ['gone-1', 'gone-2'], gone.apiKey);
      await postBatch(agent, sb, ['kept-1'], kept.apiKey);
      expect(await control('DELETE', `/_sandbox/workspaces/${gone.workspaceId}`)).toEqual({ status: 200, body: { deleted: gone.workspaceId } });
    } finally {
      sb.child.kill('SIGKILL');
      await sb.exited;
      await agent.close();
    }

    const again = await start(dataFile);
    try {
      const listed = (await (await request(`${again.baseUrl}/_sandbox/workspaces`)).body.json()) as { items: { id: string }[] };
      expect(listed.items.map((w) => w.id).slice(1)).toEqual([kept.workspaceId]);
      const check = await request(`${again.baseUrl}/v1/api-keys/check`, { headers: { authorization: `Bearer ${gone.apiKey}` } });
      expect(check.statusCode).toBe(401);
      await check.body.dump();
      expect((await request(`${again.baseUrl}/_sandbox/emails?workspace=${gone.workspaceId}`)).statusCode).toBe(404);
      expect((await inbox(again, kept.workspaceId)).map((e) => e.idempotencyKey)).toEqual(['kept-1']);
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  }, 60_000);
});

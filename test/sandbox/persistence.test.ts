import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadSnapshot, Persister } from '../../src/sandbox/persistence.js';
import { SandboxState } from '../../src/sandbox/state.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailroom-persist-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('Persister', () => {
  test('changes in quick succession coalesce into one write of the latest state, with no temp file left', async () => {
    const file = join(dir, 'state.json');
    const state = SandboxState.fresh('sk_live_persist');
    let snapshots = 0;
    const persister = new Persister(file, () => (snapshots++, state.snapshot()), (err) => { throw err; }, 20);
    for (let i = 0; i < 5; i++) {
      state.addKey(`k${i}`, 'API_USER', `sk_live_k${i}`);
      persister.schedule();
    }
    await new Promise((r) => setTimeout(r, 80));
    expect(snapshots).toBe(1);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.keys.map((k: { displayName: string }) => k.displayName)).toEqual(['Sandbox key', 'k0', 'k1', 'k2', 'k3', 'k4']);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  test('flush writes at once and only when something changed', async () => {
    const file = join(dir, 'state.json');
    let writes = 0;
    const state = SandboxState.fresh(undefined);
    const persister = new Persister(file, () => (writes++, state.snapshot()), () => undefined, 10_000);
    await persister.flush();
    expect(writes).toBe(0);
    persister.schedule();
    await persister.flush();
    expect(writes).toBe(1);
    await persister.flush();
    expect(writes).toBe(1);
  });

  test('a failed write is tried again by the next flush', async () => {
    const sub = join(dir, 'later');
    const file = join(sub, 'state.json');
    const state = SandboxState.fresh('sk_live_retrywrite');
    const persister = new Persister(file, () => state.snapshot(), () => undefined, 10_000);
    persister.schedule();
    await expect(persister.flush()).rejects.toThrow(/ENOENT/);
    await mkdir(sub);
    await persister.flush();
    expect(JSON.parse(await readFile(file, 'utf8')).keys[0].secretKey).toBe('sk_live_retrywrite');
  });

  test('a round trip restores keys, their lookup by secret, emails and idempotency', async () => {
    const file = join(dir, 'state.json');
    const state = SandboxState.fresh('sk_live_roundtrip');
    state.idempotency.set('k', { id: 'trs_1', messageId: 'm', status: 'SENT', to: 'a@b.test', type: 'raw' });
    const persister = new Persister(file, () => state.snapshot(), () => undefined);
    persister.schedule();
    await persister.flush();
    const restored = SandboxState.fromSnapshot((await loadSnapshot(file))!);
    expect(restored.workspace).toEqual(state.workspace);
    expect(restored.keysBySecret.get('sk_live_roundtrip')?.id).toBe(state.primaryKeyId);
    expect(restored.idempotency.get('k')?.id).toBe('trs_1');
  });
});

describe('loadSnapshot', () => {
  test('a missing file is a fresh start; other files are refused', async () => {
    expect(await loadSnapshot(join(dir, 'none.json'))).toBeUndefined();
    const notJson = join(dir, 'x.json');
    await writeFile(notJson, 'nope');
    await expect(loadSnapshot(notJson)).rejects.toThrow(/is not valid JSON/);
    const other = join(dir, 'y.json');
    await writeFile(other, '{"version": 2}');
    await expect(loadSnapshot(other)).rejects.toThrow(/not a mailroom sandbox data file/);
  });

  test('a data file whose records are damaged is refused, not half loaded', async () => {
    const good = SandboxState.fresh('sk_live_damaged').snapshot();
    const file = join(dir, 'state.json');
    await writeFile(file, JSON.stringify(good));
    expect(await loadSnapshot(file)).toEqual(good);
    const damaged = [
      { ...good, keys: [null] },
      { ...good, keys: [{ ...good.keys[0], secretKey: 5 }] },
      { ...good, emails: [{ id: 'trs_x' }] },
      { ...good, webhooks: [{ id: 'wh_x', url: 'http://x.test', events: 'CONTACT_CREATED', token: 'wht_x', createdAt: 'now' }] },
      { ...good, idempotency: [['k', null]] },
    ];
    for (const snap of damaged) {
      await writeFile(file, JSON.stringify(snap));
      await expect(loadSnapshot(file)).rejects.toThrow(/not a mailroom sandbox data file/);
    }
  });
});

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalWriter } from '../../src/webhook/delivery-journal.js';

describe('webhooks listen --journal: one listener per journal', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mailroom-listen-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a journal held by another live listener is refused, naming its pid; nothing is written to it', async () => {
    const path = join(dir, 'deliveries.ndjson');
    writeFileSync(path, '');
    // Another process on this host holds the lock, as a second `webhooks listen` would find it.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${path}.lock`, JSON.stringify({ pid: other.pid, host: hostname(), startedAt: '2026-11-23T08:00:00.000Z' }));
      await expect(JournalWriter.open(path)).rejects.toThrow(`--journal ${path} is in use by another mailroom webhooks listen (pid ${other.pid}, started 2026-11-23T08:00:00.000Z)`);
      expect(readFileSync(path, 'utf8')).toBe('');
    } finally {
      other.kill();
    }
  });

  it('the lock is held while the listener runs and released when it closes', async () => {
    const path = join(dir, 'deliveries.ndjson');
    const writer = await JournalWriter.open(path);
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(process.pid);
    await writer.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a lock left by a listener that died is taken over', async () => {
    const path = join(dir, 'deliveries.ndjson');
    const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((r) => dead.once('exit', r));
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: dead.pid, host: hostname(), startedAt: '2026-11-23T08:00:00.000Z' }));
    const writer = await JournalWriter.open(path);
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(process.pid);
    await writer.close();
  });
});

describe('webhooks listen --journal, in-process: a listener that fails to start lets go of its journal', () => {
  it('the port is taken: exit 2, and the journal lock is released', async () => {
    const { runInProcess } = await import('../helpers/context.js');
    const { createServer } = await import('node:net');
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-listen-lock-'));
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    try {
      const path = join(dir, 'd.ndjson');
      const r = await runInProcess(['webhooks', 'listen', '--token', 'wht_abcdefgh', '--port', String(port), '--journal', path]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is already in use');
      expect(existsSync(`${path}.lock`)).toBe(false);
    } finally {
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

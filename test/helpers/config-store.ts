import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

/** What the config-store tests (in-process and spawned) run against a store that cannot be used. */
export const isRoot = process.getuid?.() === 0;
export const KEY = 'sk_live_storeStoreStoreStore0001';

/** A command that reads the store, one that writes it, and login (which writes a key). */
export const commands: [string, string[], string | undefined][] = [
  ['check', ['check'], undefined],
  ['config set', ['config', 'set', 'workspace', 'wrk_1'], undefined],
  ['login', ['login', '--api-key-stdin', '--base-url', 'http://127.0.0.1:9'], KEY],
];

/** A world-readable temporary directory for the file's stores, made before its tests and removed after. */
export function storeRoot(): () => string {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'mailroom-store-'));
    chmodSync(root, 0o755);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return () => root;
}

/** One line on stderr in mailroom's words, the exit code, nothing on stdout. */
export function expectOneLine(result: { stdout: string; stderr: string; code: number | null }, line: string, code = 2): void {
  expect(result.stderr).toBe(`mailroom: ${line}\n`);
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
}

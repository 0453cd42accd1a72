import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * A long-running `mailroom` process (webhooks listen) for e2e tests: stdout split into lines as
 * they arrive, a wait for the line a test expects, and a Ctrl-C (SIGINT) stop that returns the exit
 * code and everything printed. Short commands use test/helpers/cli.ts's runCli.
 */
export const BIN = resolve(import.meta.dirname, '../../../bin/mailroom.js');

export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    MAILROOM_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mailroom-cfg-')),
    NO_COLOR: '1',
    ...extra,
  };
}

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line (from index `from`) the predicate accepts. */
  waitForLine(predicate: (line: string) => boolean, timeoutMs?: number, from?: number): Promise<string>;
  /** Waits until stdout has at least `n` lines. */
  waitForLines(n: number, timeoutMs?: number): Promise<string[]>;
  stop(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export function startCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: 'pipe' });
  const lines: string[] = [];
  let stdout = '';
  let partial = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    partial += chunk.toString();
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const w of waiters) w();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  child.on('exit', () => {
    for (const w of waiters) w();
  });

  const waitFor = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolvePromise, reject) => {
      const poll = () => {
        const value = check();
        if (value !== undefined) {
          waiters.delete(poll);
          clearTimeout(timer);
          resolvePromise(value);
        } else if (child.exitCode !== null) {
          waiters.delete(poll);
          clearTimeout(timer);
          reject(new Error(`mailroom exited (${child.exitCode}) before ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(poll);
        reject(new Error(`timed out waiting for ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      }, timeoutMs);
      waiters.add(poll);
      poll();
    });

  return {
    child,
    lines,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForLine: (predicate, timeoutMs = 10_000, from = 0) => waitFor(() => lines.slice(from).find(predicate), timeoutMs, 'the expected line'),
    waitForLines: (n, timeoutMs = 10_000) => waitFor(() => (lines.length >= n ? lines.slice(0, n) : undefined), timeoutMs, `${n} lines`),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      const code = await exited;
      return { code, stdout, stderr };
    },
  };
}

/** A command run to completion with optional stdin bytes. */
export function runOnce(args: string[], env: Record<string, string>, input?: string | Buffer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = startCli(args, env);
  proc.child.stdin.end(input);
  return new Promise((resolvePromise) => {
    proc.child.on('close', (code) => resolvePromise({ code, stdout: proc.stdout(), stderr: proc.stderr() }));
  });
}

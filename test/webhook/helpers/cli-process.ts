import { spawn } from 'node:child_process';
import { BIN, cleanEnv, tempConfigDir } from '../../helpers/cli.js';

/** runCli's clean environment with a fresh config store, for a process the test starts itself. */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return cleanEnv(tempConfigDir(), extra);
}

/**
 * A long-running `mailroom` process (webhooks listen) for e2e tests: stdout split into lines as
 * they arrive, a wait for the line a test expects, and a Ctrl-C (SIGINT) stop that returns the exit
 * code and everything printed. Short commands use test/helpers/cli.ts's runCli.
 */
export interface CliProcess {
  lines: string[];
  stderr(): string;
  /** Resolves with the first stdout line the predicate accepts. */
  waitForLine(predicate: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  stop(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `tty`: run under a pseudo-terminal (util-linux `script`), stderr merged into the lines. */
export function startCli(args: string[], env: Record<string, string>, opts: { tty?: boolean } = {}): CliProcess {
  const child = opts.tty
    ? spawn('script', ['-qfec', [process.execPath, BIN, ...args].map(shellQuote).join(' '), '/dev/null'], { env: { TERM: 'xterm-256color', ...env }, stdio: 'pipe' })
    : spawn(process.execPath, [BIN, ...args], { env, stdio: 'pipe' });
  const lines: string[] = [];
  let stdout = '';
  let partial = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    partial += chunk.toString();
    const parts = partial.split('\n').map((l, i, all) => (i < all.length - 1 ? l.replace(/\r$/, '') : l));
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
    lines,
    stderr: () => stderr,
    waitForLine: (predicate, timeoutMs = 10_000) => waitFor(() => lines.find(predicate), timeoutMs, 'the expected line'),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      const code = await exited;
      return { code, stdout, stderr };
    },
  };
}


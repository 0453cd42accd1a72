import {
  spawn,
  type ChildProcess,
  type ChildProcessByStdio,
  type ChildProcessWithoutNullStreams,
  type SpawnOptions,
  type SpawnOptionsWithoutStdio,
  type SpawnOptionsWithStdioTuple,
  type StdioNull,
  type StdioPipe,
} from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'mailroom.js');

/**
 * Text to type once stdout shows `after` (e.g. a prompt): typed too early, a terminal would echo it.
 * A promise: once it settles (a server saw the request, say).
 */
export interface InputStep {
  after: string | RegExp | Promise<unknown>;
  send: string;
}

export interface RunOptions {
  /** Added to the clean environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** stdin: a string (then EOF), or steps typed as the output asks for them. */
  input?: string | InputStep[];
  cwd?: string;
  /**
   * Run under a real pseudo-terminal (util-linux `script`). `true`: stdin, stdout and stderr are the
   * terminal (stderr arrives inside `stdout`); `'stdout'`: stderr is captured apart, not a terminal.
   */
  tty?: boolean | 'stdout';
  /** With `tty`: the terminal's width (stty cols), as a user's window would have it. */
  columns?: number;
  /** The config store directory; a fresh temp dir (removed afterwards) when absent. */
  configDir?: string;
  timeoutMs?: number;
  /** Run as this user (uid = gid), e.g. 65534 to meet the permissions root ignores; the test must be root. */
  asUser?: number;
  /** Another copy of bin/mailroom.js (an installed package laid out in a temp dir); default BIN. */
  bin?: string;
}

export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** A fresh, empty config store directory; the caller removes it (rmSync) when done. */
export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'mailroom-cfg-'));
}

const INHERITED_NOISE = /^(MAILROOM_|SMASHSEND_|NO_COLOR$|FORCE_COLOR$|HTTPS?_PROXY$|NO_PROXY$|https?_proxy$|no_proxy$|ALL_PROXY$|all_proxy$)/;

/** process.env without anything that would change the CLI's behaviour, plus the test's store dir. */
export function cleanEnv(configDir: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !INHERITED_NOISE.test(k)) env[k] = v;
  env.MAILROOM_CONFIG_DIR = configDir;
  // Never the user's own keychain: keys stay in the test's config file, and no D-Bus session is
  // reachable (test/e2e/keychain.test.ts runs the keychain on a private bus of its own).
  env.MAILROOM_SECURE_STORAGE = 'off';
  env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/mailroom-test-bus';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** The width of the terminal runCli() gives a command when the test names none. */
export const DEFAULT_COLUMNS = 80;

/** Text a terminal wrapped at its width, put back on one line: each line break becomes one space. */
export const unwrap = (s: string): string => s.replace(/[ \t]*\r?\n[ \t]*/g, ' ');

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Spawns `node bin/mailroom.js ...args` (build first) and collects its output and exit code. */
export async function runCli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const ownDir = opts.configDir === undefined ? tempConfigDir() : undefined;
  const configDir = opts.configDir ?? (ownDir as string);
  const env = cleanEnv(configDir, opts.env);
  const errFile = opts.tty === 'stdout' ? join(configDir, `.stderr-${process.pid}-${Date.now()}`) : undefined;
  const bin = opts.bin ?? BIN;
  let command = process.execPath;
  let argv = [bin, ...args];
  if (opts.tty) {
    env.TERM ??= 'xterm-256color';
    // A terminal of a known size: the one `script` makes otherwise takes the size of whatever
    // terminal (or none) the test run itself has, and prompts wrap differently there.
    const inner =
      `stty cols ${opts.columns ?? DEFAULT_COLUMNS} rows 24; ` + [process.execPath, bin, ...args].map(shellQuote).join(' ') + (errFile ? ` 2>${shellQuote(errFile)}` : '');
    command = 'script';
    argv = ['-qfec', inner, '/dev/null'];
  }
  try {
    const result = await run(command, argv, env, opts);
    if (opts.tty) {
      result.stdout = result.stdout.replace(/\r\n/g, '\n');
      if (errFile) result.stderr = readFileSync(errFile, 'utf8');
    }
    return result;
  } finally {
    if (errFile) rmSync(errFile, { force: true });
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  }
}

function run(command: string, argv: string[], env: Record<string, string>, opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const user = opts.asUser === undefined ? {} : { uid: opts.asUser, gid: opts.asUser };
    const child = spawn(command, argv, { env, cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'], ...user });
    let stdout = '';
    let stderr = '';
    const steps = typeof opts.input === 'string' || opts.input === undefined ? [] : [...opts.input];
    const settled = new Set<Promise<unknown>>();
    const feed = () => {
      while (steps.length > 0) {
        const next = steps[0] as InputStep;
        const after = next.after;
        const seen = typeof after === 'string' ? stdout.includes(after) : after instanceof RegExp ? after.test(stdout) : settled.has(after);
        if (!seen) return;
        child.stdin.write(next.send);
        steps.shift();
      }
      if (Array.isArray(opts.input)) child.stdin.end();
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      feed();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.on('error', () => undefined);
    for (const step of steps) {
      const after = step.after;
      if (after instanceof Promise) {
        void after.finally(() => {
          settled.add(after);
          feed();
        });
      }
    }
    if (typeof opts.input === 'string') child.stdin.end(opts.input);
    else if (opts.input === undefined && !opts.tty) child.stdin.end();
    else feed();
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code: code ?? (signal ? 128 : 1) });
    });
  });
}

/**
 * The real binary as a child the test drives itself (a signal at a chosen moment, stdio of its own
 * choosing): `node bin/mailroom.js ...args` with the options given, env included.
 */
export function spawnCli(args: string[], opts?: SpawnOptionsWithoutStdio): ChildProcessWithoutNullStreams;
export function spawnCli<I extends StdioNull | StdioPipe, O extends StdioNull | StdioPipe, E extends StdioNull | StdioPipe>(
  args: string[],
  opts: SpawnOptionsWithStdioTuple<I, O, E>,
): ChildProcessByStdio<I extends StdioPipe ? Writable : null, O extends StdioPipe ? Readable : null, E extends StdioPipe ? Readable : null>;
export function spawnCli(args: string[], opts: SpawnOptions = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], opts);
}

/** runCli's clean environment with a fresh config store, for a process the test starts itself. */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return cleanEnv(tempConfigDir(), extra);
}

/**
 * A long-running `mailroom` process (webhooks listen) for e2e tests: stdout split into lines as
 * they arrive, a wait for the line a test expects, and a Ctrl-C (SIGINT) stop that returns the exit
 * code and everything printed. Short commands use runCli.
 */
export interface CliProcess {
  lines: string[];
  stderr(): string;
  /** Resolves with the first stdout line the predicate accepts. */
  waitForLine(predicate: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  stop(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `tty`: run under a pseudo-terminal (util-linux `script`), stderr merged into the lines. */
export function startCli(args: string[], env: Record<string, string>, opts: { tty?: boolean } = {}): CliProcess {
  const child = opts.tty
    ? spawn('script', ['-qfec', [process.execPath, BIN, ...args].map(shellQuote).join(' '), '/dev/null'], { env: { TERM: 'xterm-256color', ...env }, stdio: 'pipe' })
    : spawnCli(args, { env, stdio: 'pipe' });
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


/** Who reads the CLI's stdout and stderr (runCliTo). */
export type Reader =
  /** A file, as `> out.txt 2> err.txt` gives: every write lands at once. */
  | 'file'
  /**
   * A pipe whose reader waits before reading (`| (sleep 2; wc -c)`): nothing is read until the CLI
   * has exited or `waitMs` have passed since its first byte, so a CLI that exits without waiting for
   * its pipes to drain loses what the pipe (64 KiB) could not hold.
   */
  | 'slow'
  /** A pipe whose reader leaves after the first line of stdout (`| head -1`); stderr is read whole. */
  | 'first-line';

export interface ReaderResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/**
 * Runs `node bin/mailroom.js ...args` with stdout and stderr going to `reader` (build first). The
 * output is bytes, so byte counts compare as `wc -c` would give them.
 */
export async function runCliTo(reader: Reader, args: string[], opts: { env: Record<string, string>; waitMs?: number; timeoutMs?: number }): Promise<ReaderResult> {
  if (reader === 'file') return toFiles(args, opts.env);
  const child = spawnCli(args, { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
  try {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const closed = Promise.all([new Promise((r) => child.stdout.on('close', r)), new Promise((r) => child.stderr.on('close', r))]);
    if (reader === 'first-line') {
      child.stderr.on('data', (d: Buffer) => err.push(d));
      child.stdout.on('data', (d: Buffer) => {
        const at = d.indexOf(10);
        out.push(at >= 0 ? d.subarray(0, at + 1) : d);
        if (at >= 0) child.stdout.destroy();
      });
    } else {
      // Node's own side of a pipe reads ahead up to its high-water mark (16 KiB), then stops reading
      // while paused: from the first chunk on, nothing more is taken until the wait is over.
      child.stdout.on('data', (d: Buffer) => out.push(d));
      child.stderr.on('data', (d: Buffer) => err.push(d));
      const firstChunk = new Promise<void>((resolve) => {
        const seen = () => {
          child.stdout.pause();
          child.stderr.pause();
          resolve();
        };
        child.stdout.once('data', seen);
        child.stderr.once('data', seen);
      });
      await Promise.race([exited, firstChunk.then(() => new Promise((r) => setTimeout(r, opts.waitMs ?? 1000)))]);
      child.stdout.resume();
      child.stderr.resume();
    }
    const code = await exited;
    await closed;
    return { stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString(), code };
  } finally {
    clearTimeout(timer);
  }
}

async function toFiles(args: string[], env: Record<string, string>): Promise<ReaderResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-out-'));
  const outFd = openSync(join(dir, 'out'), 'w');
  const errFd = openSync(join(dir, 'err'), 'w');
  try {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', outFd, errFd] });
    const code = await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 128 : 1)));
    });
    return { stdout: readFileSync(join(dir, 'out')), stderr: readFileSync(join(dir, 'err'), 'utf8'), code };
  } finally {
    closeSync(outFd);
    closeSync(errFd);
    rmSync(dir, { recursive: true, force: true });
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { colorEnabled, type Clock, type Context, type IO, type Keychain, type Prompter } from '../../src/context.js';
import { noKeychain } from './keychain.js';
import { run } from '../../src/run.js';
import { resetSecrets } from '../../src/secrets.js';

export interface FakeOptions {
  /** The whole environment the command sees (nothing is inherited from the test process). */
  env?: Record<string, string | undefined>;
  /** stdin: a string or bytes, then EOF; default empty. */
  input?: string | Buffer;
  /**
   * Terminal facts: `true` makes stdin, stdout and stderr terminals; `'stdout'` stdout alone (runCli's
   * `tty: 'stdout'`, without a real pseudo-terminal).
   */
  tty?: boolean | 'stdout' | { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  /** Colour on; runInProcess's default weighs the terminal, --no-color, NO_COLOR and FORCE_COLOR as main does. */
  color?: boolean;
  columns?: number;
  cwd?: string;
  /** Scripted answers to prompts, in order; a prompt with no answer left fails the test. */
  answers?: (boolean | string)[];
  signal?: AbortSignal;
  /** The clock of what prints on a schedule (batch progress lines); default the real one. */
  clock?: Clock;
  /** The credential store; default none (test/helpers/keychain.ts): never the real one in-process. */
  keychain?: Keychain;
}

export interface FakeContext {
  ctx: Context;
  stdout(): string;
  stderr(): string;
  /** The prompts asked so far, in order. */
  prompts: string[];
}

/** A context with buffers for stdout/stderr, a TTY switch, an env and a prompter that answers from a script. */
export function fakeContext(opts: FakeOptions = {}): FakeContext {
  let out = '';
  let err = '';
  const outStream = new PassThrough();
  const errStream = new PassThrough();
  outStream.on('data', (d: Buffer) => (out += d.toString()));
  errStream.on('data', (d: Buffer) => (err += d.toString()));
  const tty = ttyFacts(opts.tty);
  const io: IO = {
    out: outStream,
    err: errStream,
    in: Readable.from(opts.input === undefined ? [] : [opts.input]),
    isStdoutTTY: !!tty.stdout,
    isStderrTTY: !!tty.stderr,
    isStdinTTY: !!tty.stdin,
    color: opts.color ?? false,
    outColumns: tty.stdout ? opts.columns : undefined,
    errColumns: tty.stderr ? opts.columns : undefined,
  };
  const answers = [...(opts.answers ?? [])];
  const prompts: string[] = [];
  const next = (message: string) => {
    prompts.push(message);
    if (answers.length === 0) throw new Error(`unexpected prompt: ${message}`);
    return answers.shift() as boolean | string;
  };
  const prompter: Prompter = {
    confirm: async (ctx, message) => {
      ctx.io.err.write(`? ${message}\n`);
      return next(message) === true;
    },
    password: async (ctx, message, validate) => {
      ctx.io.err.write(`? ${message}\n`);
      const answer = String(next(message));
      const ok = validate(answer);
      if (ok !== true) throw new Error(ok);
      return answer;
    },
  };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  const ctx: Context = { io, env, cwd: opts.cwd ?? process.cwd(), signal: opts.signal ?? new AbortController().signal, prompter, keychain: opts.keychain ?? noKeychain, ...(opts.clock ? { clock: opts.clock } : {}) };
  return { ctx, stdout: () => out, stderr: () => err, prompts };
}

function ttyFacts(tty: FakeOptions['tty']): { stdin?: boolean; stdout?: boolean; stderr?: boolean } {
  if (typeof tty === 'object') return tty;
  if (tty === 'stdout') return { stdout: true };
  return { stdin: !!tty, stdout: !!tty, stderr: !!tty };
}

export interface InProcessOptions extends FakeOptions {
  /** The config store directory (MAILROOM_CONFIG_DIR); a fresh temp dir (removed afterwards) when absent. */
  configDir?: string;
}

export interface InProcessResult {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Runs the CLI in-process through run() (src/run.ts), as `mailroom ...args` would in a fresh process:
 * nothing held from an earlier run, a fresh config store unless `configDir` or
 * `env.MAILROOM_CONFIG_DIR` names one, colour decided as src/main.ts decides it. The same result
 * shape as runCli (test/helpers/cli.ts), so a case reads the same either way.
 */
export async function runInProcess(args: string[], opts: InProcessOptions = {}): Promise<InProcessResult> {
  const ownDir = opts.configDir === undefined && opts.env?.MAILROOM_CONFIG_DIR === undefined ? mkdtempSync(join(tmpdir(), 'mailroom-cfg-')) : undefined;
  const configDir = opts.configDir ?? ownDir;
  const env = { ...(configDir === undefined ? {} : { MAILROOM_CONFIG_DIR: configDir }), ...opts.env };
  const color = opts.color ?? colorEnabled(env, !!ttyFacts(opts.tty).stdout, args.includes('--no-color') ? false : undefined);
  resetSecrets();
  const fake = fakeContext({ ...opts, env, color });
  try {
    const code = await run(args, fake.ctx);
    // Let the last writes reach the buffers.
    await new Promise((resolve) => setImmediate(resolve));
    return { stdout: fake.stdout(), stderr: fake.stderr(), code };
  } finally {
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  }
}

/** A long-running command (webhooks listen, sandbox) run in-process: runCli's CliProcess shape, stopped by a Ctrl-C. */
export interface InProcessCommand {
  /** Complete stdout lines so far. */
  lines: string[];
  /** Complete stderr lines so far. */
  errLines: string[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line the predicate accepts; rejects if the command ends first. */
  waitForLine(predicate: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** The same for stderr (a banner's "listening on", a warning): an event to await instead of a poll. */
  waitForErrLine(predicate: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code once the command ends by itself (stdout closed, a start-up error). */
  exited: Promise<number>;
  /** The first Ctrl-C (ctx.signal aborted), then the exit code and everything printed. */
  stop(): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** Complete lines of a growing text, kept up to date as data arrives. */
function lineTracker(text: () => string, lines: string[], changed: () => void): () => void {
  let seen = 0;
  return () => {
    const all = text();
    const complete = all.slice(0, all.lastIndexOf('\n') + 1).split('\n').slice(0, -1);
    lines.push(...complete.slice(seen));
    seen = complete.length;
    changed();
  };
}

/** Starts `mailroom ...args` in-process (as runInProcess does) and hands it back while it runs. */
export function startInProcess(args: string[], opts: InProcessOptions = {}): InProcessCommand {
  const ownDir = opts.configDir === undefined && opts.env?.MAILROOM_CONFIG_DIR === undefined ? mkdtempSync(join(tmpdir(), 'mailroom-cfg-')) : undefined;
  const configDir = opts.configDir ?? ownDir;
  const env = { ...(configDir === undefined ? {} : { MAILROOM_CONFIG_DIR: configDir }), ...opts.env };
  const color = opts.color ?? colorEnabled(env, !!ttyFacts(opts.tty).stdout, args.includes('--no-color') ? false : undefined);
  const interrupt = new AbortController();
  resetSecrets();
  const fake = fakeContext({ ...opts, env, color, signal: interrupt.signal });
  const lines: string[] = [];
  const errLines: string[] = [];
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  (fake.ctx.io.out as PassThrough).on('data', lineTracker(fake.stdout, lines, wake));
  (fake.ctx.io.err as PassThrough).on('data', lineTracker(fake.stderr, errLines, wake));
  let code: number | undefined;
  const done = run(args, fake.ctx).then(async (c) => {
    await new Promise((resolve) => setImmediate(resolve));
    code = c;
    wake();
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    return c;
  });
  const waitIn =
    (where: string[], stream: string) =>
    (predicate: (line: string) => boolean, timeoutMs = 10_000): Promise<string> =>
      new Promise((resolve, reject) => {
        const check = () => {
          const line = where.find(predicate);
          if (line !== undefined || code !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            if (line !== undefined) resolve(line);
            else reject(new Error(`mailroom ended (${code}) before the expected ${stream} line\nstdout:\n${fake.stdout()}\nstderr:\n${fake.stderr()}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for the expected ${stream} line\nstdout:\n${fake.stdout()}\nstderr:\n${fake.stderr()}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
  return {
    lines,
    errLines,
    stdout: () => fake.stdout(),
    stderr: () => fake.stderr(),
    waitForLine: waitIn(lines, 'stdout'),
    waitForErrLine: waitIn(errLines, 'stderr'),
    exited: done,
    stop: async () => {
      interrupt.abort();
      const c = await done;
      return { code: c, stdout: fake.stdout(), stderr: fake.stderr() };
    },
  };
}

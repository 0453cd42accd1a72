import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Context, IO, Prompter } from '../../src/context.js';
import { run } from '../../src/run.js';

export interface FakeOptions {
  /** The whole environment the command sees (nothing is inherited from the test process). */
  env?: Record<string, string | undefined>;
  /** stdin: a string or bytes, then EOF; default empty. */
  input?: string | Buffer;
  /** Terminal facts: `true` makes stdin, stdout and stderr terminals. */
  tty?: boolean | { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  color?: boolean;
  columns?: number;
  cwd?: string;
  /** Scripted answers to prompts, in order; a prompt with no answer left fails the test. */
  answers?: (boolean | string)[];
  signal?: AbortSignal;
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
  const tty = typeof opts.tty === 'object' ? opts.tty : { stdin: !!opts.tty, stdout: !!opts.tty, stderr: !!opts.tty };
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
  const ctx: Context = { io, env, cwd: opts.cwd ?? process.cwd(), signal: opts.signal ?? new AbortController().signal, prompter };
  return { ctx, stdout: () => out, stderr: () => err, prompts };
}

export interface InProcessResult {
  stdout: string;
  stderr: string;
  code: number;
  prompts: string[];
}

/**
 * Runs the CLI in-process through run() (src/run.ts), as `mailroom ...args` would, with a fresh
 * config store unless `env.MAILROOM_CONFIG_DIR` names one. The same result shape as runCli.
 */
export async function runInProcess(args: string[], opts: FakeOptions = {}): Promise<InProcessResult> {
  const ownDir = opts.env?.MAILROOM_CONFIG_DIR === undefined ? mkdtempSync(join(tmpdir(), 'mailroom-cfg-')) : undefined;
  const fake = fakeContext({ ...opts, env: { ...(ownDir ? { MAILROOM_CONFIG_DIR: ownDir } : {}), ...opts.env } });
  try {
    const code = await run(args, fake.ctx);
    // Let the last writes reach the buffers.
    await new Promise((resolve) => setImmediate(resolve));
    return { stdout: fake.stdout(), stderr: fake.stderr(), code, prompts: fake.prompts };
  } finally {
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  }
}

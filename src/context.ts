import type { Readable, Writable } from 'node:stream';
import { isatty } from 'node:tty';

/** Streams and terminal facts a command may use (gh's IOStreams). Tests hand in buffers. */
export interface IO {
  out: Writable;
  err: Writable;
  in: Readable;
  isStdoutTTY: boolean;
  isStderrTTY: boolean;
  isStdinTTY: boolean;
  /** Colour on stdout/stderr: a terminal, unless --no-color / NO_COLOR; FORCE_COLOR forces it. */
  color: boolean;
  /** Width of the terminal on stdout/stderr; absent when not a terminal. */
  outColumns?: number | undefined;
  errColumns?: number | undefined;
}

/** The global options (docs/configuration.md), as Commander parsed them (flags only; env comes later). */
export interface Globals {
  profile?: string;
  apiKey?: string;
  /** `--api-key-file <path|->`: the key read from a file or stdin, kept out of argv. */
  apiKeyFile?: string;
  baseUrl?: string;
  workspace?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  timeout?: number;
  maxRetries?: number;
  /** `--sandbox`: this one command runs against a throw-away local sandbox. */
  sandbox?: boolean;
  /** `--allow-http`: the key may go over plain http:// to a host that is not loopback, without a warning. */
  allowHttp?: boolean;
}

/**
 * What a command may use. Everything heavy is reached through functions that import it on first
 * use, so `--help` and light commands never load undici, conf or zod.
 */
export interface Context {
  io: IO;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborted on the first Ctrl-C; long-running commands settle and return. */
  signal: AbortSignal;
  /** `--json id,displayName`: the fields JSON output keeps (all when absent). */
  jsonFields?: readonly string[];
  /**
   * The one JSON document of this command line (src/output/document.ts), made by run(): the result
   * and the error are held here and written once the command has ended. Absent: written at once.
   */
  document?: JsonDocumentState;
  /** `--jq <expression>`, compiled before the command ran (src/output/jq.ts): the JSON document goes through it. */
  jq?: JqFilter;
  /** The throw-away sandbox of `--sandbox`, while the command runs; settings take it over everything. */
  sandbox?: SandboxSession & { close(): Promise<void> };
  /** Run by run() after the action, whatever happened (closing the transport); absent outside run(). */
  cleanups?: (() => Promise<void>)[];
  /** Answers prompts; absent: the terminal (src/input/prompter.ts). Tests script the answers. */
  prompter?: Prompter;
  /** Paces what prints on a schedule (batch progress lines, src/output/progress.ts); absent: the real clock. Tests step their own. */
  clock?: Clock;
  /** The system credential store keys are kept in; absent: the real one (src/config/keychain.ts). In-process tests hand in their own. */
  keychain?: Keychain;
}

/** Where a profile's key is kept in the system credential store: the config file holds only this. */
export interface KeychainRef {
  service: string;
  account: string;
}

/**
 * The system credential store (Secret Service on Linux, Keychain on macOS, Credential Manager on
 * Windows). Every method throws `KeychainUnavailable` (src/config/keychain.ts) when there is none to
 * use here; `get` gives undefined for an entry that is not there.
 */
export interface Keychain {
  get(ref: KeychainRef): string | undefined;
  set(ref: KeychainRef, secret: string): void;
  /** Whether there was an entry to remove. */
  delete(ref: KeychainRef): boolean;
}

/** Time as a paced printer sees it: the current time and a repeating timer. */
export interface Clock {
  now(): number;
  /** Calls `fn` every `ms` until the returned stop is called. */
  every(ms: number, fn: () => void): () => void;
}

/** A compiled `--jq` expression: the text it prints for a JSON value (strings raw), or jq's error. */
export interface JqFilter {
  run(value: unknown, pretty: boolean): { text: string; error?: undefined } | { error: string; text?: undefined };
}

/** What the JSON document holds until run() writes it: the command's result and its error, if any. */
export interface JsonDocumentState {
  result?: { value: unknown };
  error?: Record<string, unknown>;
  /** stdout carries a file the user asked for there (batch --report -): no error document after it. */
  stdoutIsData?: boolean;
}

/** A running local API: where it listens and the key and workspace it made. */
export interface SandboxSession {
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
}

/** Questions asked on the terminal: both reject (throw) when the user cancels (Ctrl-C, closed stdin). */
export interface Prompter {
  confirm(ctx: Context, message: string): Promise<boolean>;
  password(ctx: Context, message: string, validate: (value: string) => true | string): Promise<string>;
}

export function processIO(env: Readonly<Record<string, string | undefined>>, colorFlag?: boolean): IO {
  const isStdoutTTY = isatty(1);
  const isStderrTTY = isatty(2);
  return {
    // Touching process.stdout/stderr/stdin sets up a stream (~2 ms each); `check -q` writes nothing.
    get out() {
      return watchOutput(process.stdout, 'stdout');
    },
    get err() {
      return watchOutput(process.stderr, 'stderr');
    },
    get in() {
      return process.stdin;
    },
    isStdoutTTY,
    isStderrTTY,
    isStdinTTY: isatty(0),
    color: colorEnabled(env, isStdoutTTY, colorFlag),
    // A terminal that reports no size (0: a pty nobody sized) is one of unknown width.
    get outColumns() {
      return (isStdoutTTY && process.stdout.columns) || undefined;
    },
    get errColumns() {
      return (isStderrTTY && process.stderr.columns) || undefined;
    },
  };
}

/** A stream of the process's own stdout or stderr, by name (the exit says which one failed). */
export type OutputName = 'stdout' | 'stderr';

const opened = new Map<Writable, OutputName>();
let writeFailure: { stream: OutputName; err: NodeJS.ErrnoException } | undefined;

/**
 * Watches the process's stdout or stderr from its first use. `mailroom … | head -1`: once the reader
 * is gone, writes fail with EPIPE, which Node would raise as an uncaught error (a stack trace); the
 * command carries on and exits with its own code, and what it would have printed has nobody to read
 * it (long-running commands also listen for it to stop). Any other failure (`> /dev/full`: ENOSPC)
 * is kept for the exit (src/exit.ts) to report, once.
 */
function watchOutput<T extends Writable>(stream: T, name: OutputName): T {
  if (!opened.has(stream)) {
    opened.set(stream, name);
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') writeFailure ??= { stream: name, err };
    });
  }
  return stream;
}

/** What the process did with its stdout and stderr: those it opened (the exit drains them) and the first write that failed other than by its reader leaving. */
export function processOutputs(): { streams: Writable[]; failure: { stream: OutputName; err: NodeJS.ErrnoException } | undefined } {
  // A write that failed just now has set `errored`; its 'error' event comes on a later tick.
  for (const [stream, name] of opened) {
    const err = stream.errored as NodeJS.ErrnoException | null;
    if (err && err.code !== 'EPIPE') writeFailure ??= { stream: name, err };
  }
  return { streams: [...opened.keys()], failure: writeFailure };
}

export function colorEnabled(env: Readonly<Record<string, string | undefined>>, isTTY: boolean, colorFlag?: boolean): boolean {
  if (colorFlag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY && env.TERM !== 'dumb';
}

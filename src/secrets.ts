import type { Writable } from 'node:stream';
import { setOwn } from './schema/own-field.js';

/**
 * The secret rules, in one place: what counts as a secret, how one is shown, and the guard every
 * stream and file mailroom writes goes through (see guardStream and output/files.ts). A printer
 * never masks by itself; it writes, and the guard masks.
 *
 * Secrets are: the values this run holds (the API key in use, the webhook tokens in use, even when
 * they have no known shape), anything shaped like a SMASHSEND secret (`sk_live_…`, `sk_test_…`,
 * `wht_…`), and the values of JSON fields that hold one (`secretKey`, `token`, `apiKey`, …).
 * The one exception: a key or token this run has just created, shown once on stdout (reveal()).
 */

/**
 * Why a value cannot be an API key, or undefined: blank (an unset shell variable padded with
 * spaces), or holding a space, line break or control character (a key pasted with more than the key).
 * Such a value would go out in the Authorization header; the CLI and the library both refuse it first.
 */
export function apiKeyProblem(key: string): string | undefined {
  if (key.trim() === '') return 'the API key is blank';
  if (/[\s\p{Cc}]/u.test(key)) return 'the API key holds a space, a line break or a control character';
  return undefined;
}

/** Secret shapes of the service: API keys and webhook signing tokens. */
const SECRET_SHAPE = /\b(sk_(?:live|test)_|wht_)[A-Za-z0-9_-]{4,}/g;
/** JSON fields whose values are secrets whatever they look like. */
const SECRET_FIELD_NAMES = ['secretKey', 'token', 'apiKey', 'api_key', 'password', 'authorization'];
const SECRET_FIELD_TEXT = new RegExp(`("(?:${SECRET_FIELD_NAMES.join('|')})"\\s*:\\s*")((?:[^"\\\\]|\\\\.)*)(")`, 'gi');
const SECRET_FIELDS = new Set(SECRET_FIELD_NAMES.map((n) => n.toLowerCase()));
/** Shorter values are not looked for in text: too likely to match something innocent. */
const MIN_KNOWN_LENGTH = 6;

/**
 * The secrets one owner holds: a CLI run's (the process's own set), or one library client's, so that
 * two clients in one program neither share their keys nor pile them up for the process's lifetime.
 */
export class SecretSet {
  readonly held = new Set<string>();
  /** held compiled into the patterns redactText looks for (undefined: to compile again). */
  pattern: HeldPattern | undefined;
}
const processSecrets = new SecretSet();
/** The library's scope (src/library/secret-scope.ts): the set of the client whose call is running. */
let scopeOf: (() => SecretSet | undefined) | undefined;
const current = (): SecretSet => scopeOf?.() ?? processSecrets;

/** Lets the library say whose secrets are in use where its calls run; outside them, the process's. */
export function useSecretScope(get: () => SecretSet | undefined): void {
  scopeOf = get;
}

const revealed = new Set<string>();

/**
 * `sk_live_1234abcd…` → `sk_live_…abcd`: the type prefix and last four characters, enough to tell
 * keys apart, never enough to use one. Short values are hidden entirely.
 */
export function mask(secret: string): string {
  // Already masked (servers mask list answers the same way): keep the tail it shows.
  if (isMasked(secret)) return secret;
  const prefix = /^(sk_(?:live|test)_|wht_|[a-z]{2,5}_)/.exec(secret)?.[1] ?? '';
  const rest = secret.slice(prefix.length);
  if (rest.length < 12) return `${prefix}…`;
  return `${prefix}…${rest.slice(-4)}`;
}

/** A server that already masks (`sk_live_…abcd`) keeps its last four characters; masking again would lose them. */
export const isMasked = (value: string): boolean => /[…*]/.test(value);

/** A secret this run uses (the key, a signing token): masked wherever it appears, whatever its shape. */
export function holdSecret(value: string | null | undefined, set: SecretSet = current()): void {
  if (value && value.length >= MIN_KNOWN_LENGTH && !isMasked(value) && !set.held.has(value)) {
    set.held.add(value);
    set.pattern = undefined;
  }
}

/**
 * How a server may echo a held secret: as is or in another case, URL-encoded, JSON-escaped, or in
 * base64 (a Basic authorization header), at any of the three byte alignments base64 can put it in.
 */
interface HeldPattern {
  /** Regular expressions with how to find the secret a match stands for. */
  parts: Array<{ re: RegExp; secretOf: (match: string) => string }>;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The base64 characters that depend on `secret` alone when it follows `offset` other bytes. */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64').replace(/=+$/, '');
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * (offset + bytes.length) - 6) / 6);
    const core = encoded.slice(first, last + 1);
    if (core.length >= 8) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

function compileHeld(held: ReadonlySet<string>): HeldPattern | undefined {
  if (held.size === 0) return undefined;
  const anyCase = new Map<string, string>();
  const exact = new Map<string, string>();
  for (const secret of held) {
    for (const v of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]) anyCase.set(v.toLowerCase(), secret);
    for (const v of base64Cores(secret)) exact.set(v, secret);
  }
  const longestFirst = (keys: Iterable<string>) => [...keys].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
  const parts: HeldPattern['parts'] = [{ re: new RegExp(longestFirst(anyCase.keys()), 'gi'), secretOf: (m) => anyCase.get(m.toLowerCase()) ?? m }];
  // Base64 is matched case-sensitively: folding it would make it match far more than the secret.
  if (exact.size > 0) parts.push({ re: new RegExp(longestFirst(exact.keys()), 'g'), secretOf: (m) => exact.get(m) ?? m });
  return { parts };
}

/** Variables that hold secrets: held from the start, whether this command uses them or not. */
const SECRET_VARIABLES = ['MAILROOM_API_KEY', 'SMASHSEND_API_KEY', 'MAILROOM_WEBHOOK_TOKEN'];

export function holdSecretsOf(env: Readonly<Record<string, string | undefined>>): void {
  for (const name of SECRET_VARIABLES) holdSecret(env[name]);
}

/**
 * The one display of a key or token this run has just created (or the key a sandbox serves with): it
 * may pass through stdout and stderr, never into a file. Creation commands call this right before
 * printing what they created.
 */
export function reveal(value: string | null | undefined): void {
  if (value && !isMasked(value)) revealed.add(value);
}

/**
 * For a secret shown once among other output (the signing token `webhooks listen --register` made,
 * in its ready line): revealed for the writes `show` makes, masked again in everything after.
 */
export function revealOnce(value: string, show: () => void): void {
  const already = revealed.has(value);
  reveal(value);
  try {
    show();
  } finally {
    if (!already) revealed.delete(value);
  }
}

/** For in-process tests: forget what the previous run held and revealed. */
export function resetSecrets(): void {
  processSecrets.held.clear();
  processSecrets.pattern = undefined;
  revealed.clear();
}

export interface RedactOptions {
  /** Let values passed to reveal() through (the terminal streams, not files). */
  allowRevealed?: boolean;
}

/** Text with every secret masked (see the module comment for what a secret is). */
export function redactText(text: string, options: RedactOptions = {}): string {
  if (options.allowRevealed && revealed.size > 0) {
    for (const value of revealed) {
      if (text.includes(value)) return text.split(value).map((part) => redactText(part, options)).join(value);
    }
  }
  let out = text;
  const set = current();
  const pattern = (set.pattern ??= compileHeld(set.held));
  for (const { re, secretOf } of pattern?.parts ?? []) out = out.replace(re, (match) => mask(secretOf(match)));
  out = out.replace(SECRET_FIELD_TEXT, (_m, open: string, value: string, close: string) => `${open}${mask(value)}${close}`);
  return out.replace(SECRET_SHAPE, (value) => mask(value));
}

/**
 * A copy of a value (an API object, a list) with secrets masked: secret fields whatever their shape,
 * and every string as in redactText. For table printers, whose cells are not JSON text.
 */
export function redactValue<T>(value: T, options: RedactOptions = {}): T {
  if (typeof value === 'string') return redactText(value, options) as T;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, options)) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const secretField = SECRET_FIELDS.has(k.toLowerCase()) && typeof v === 'string';
    setOwn(out, k, secretField && !(options.allowRevealed && revealed.has(v)) ? mask(v) : redactValue(v, options));
  }
  return out as T;
}

const GUARDED = Symbol('mailroom.secretsGuard');
const guarded = new WeakMap<Writable, Writable>();

/**
 * The stream with every write (and end) redacted; everything else (isTTY, columns, events) is the
 * stream's own. Printers write whole lines or documents, so a secret is never split over two writes.
 */
export function guardStream<T extends Writable>(stream: T, options: RedactOptions = {}): T {
  if ((stream as unknown as Record<symbol, unknown>)[GUARDED]) return stream;
  const known = guarded.get(stream);
  if (known) return known as T;
  const clean = (chunk: unknown): unknown => {
    if (typeof chunk === 'string') return redactText(chunk, options);
    if (Buffer.isBuffer(chunk) || chunk instanceof Uint8Array) return redactText(Buffer.from(chunk).toString('utf8'), options);
    return chunk;
  };
  const proxy = new Proxy(stream, {
    get(target, prop) {
      if (prop === GUARDED) return true;
      if (prop === 'write') return (chunk: unknown, ...rest: unknown[]) => (target.write as (...a: unknown[]) => boolean)(clean(chunk), ...rest);
      if (prop === 'end') {
        return (chunk?: unknown, ...rest: unknown[]) =>
          typeof chunk === 'function' || chunk === undefined ? (target.end as (...a: unknown[]) => T)(chunk, ...rest) : (target.end as (...a: unknown[]) => T)(clean(chunk), ...rest);
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  guarded.set(stream, proxy);
  return proxy;
}

/**
 * The IO every command gets (main.ts and buildProgram both apply it): its out and err are guarded,
 * so no printer, present or future, can write a secret to the terminal.
 */
export function guardIO<IO extends { out: Writable; err: Writable }>(io: IO): IO {
  if ((io as unknown as Record<symbol, unknown>)[GUARDED]) return io;
  return new Proxy(io, {
    get(target, prop, receiver) {
      if (prop === GUARDED) return true;
      if (prop === 'out' || prop === 'err') return guardStream(target[prop], { allowRevealed: true });
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

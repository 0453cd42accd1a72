import { fromEnvironment } from '../config/environment.js';
import { DEFAULT_BASE_URL, normalizeBaseUrl } from '../config/url.js';
import { apiKeyProblem } from '../secrets.js';
import type { Transport } from '../transport/index.js';
import { ValidationError } from './public-errors.js';

export interface MailroomOptions {
  /** The API key. Default: MAILROOM_API_KEY, else SMASHSEND_API_KEY. */
  apiKey?: string;
  /** The API host root (with or without /v1). Default: MAILROOM_BASE_URL, else https://api.smashsend.com. */
  baseUrl?: string;
  /** The workspace of apiKeys.* (wrk_…). Default: MAILROOM_WORKSPACE. */
  workspaceId?: string;
  /** The whole answer must arrive within this, ms; a request given up on has its connection closed. Default 30000. */
  timeoutMs?: number;
  /** Retries of a failed request (5xx, 429, timeouts, lost connections; never a 4xx). Default 3. */
  maxRetries?: number;
  /** Environment read for the defaults above and for HTTPS_PROXY/NO_PROXY. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Where a client sends, with what: what a batch journal records and a resume checks. */
export interface Connection {
  baseUrl: string;
  apiKey: string;
  workspaceId: string | undefined;
  maxRetries: number;
  env: Readonly<Record<string, string | undefined>>;
  /** The transport, created on first use. */
  transport(): Promise<Transport>;
  /** A transport with another key on the same settings (checking a new key while rotating). */
  transportWith(apiKey: string): Promise<Transport>;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 3;

/** The longest timer Node keeps: a longer one fires after 1 ms instead (with a warning). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** `timeoutMs` and `maxRetries`, of the client and of each call alike: one check, one wording. */
export function checkLimits(o: { timeoutMs?: unknown; maxRetries?: unknown }, label: string): void {
  const { timeoutMs, maxRetries } = o;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && (timeoutMs as number) >= 1 && (timeoutMs as number) <= MAX_TIMEOUT_MS)) {
    throw new ValidationError(`${label}: timeoutMs must be a positive integer of at most ${MAX_TIMEOUT_MS} (about 24 days), got ${String(timeoutMs)}`);
  }
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && (maxRetries as number) >= 0 && (maxRetries as number) <= 10)) {
    throw new ValidationError(`${label}: maxRetries must be an integer from 0 to 10, got ${String(maxRetries)}`);
  }
}

/** A call's options (RequestOptions), checked before anything is done: the same limits as the client's. */
export function checkCallOptions<T extends object>(opts: T | undefined, label: string, known: readonly string[] = REQUEST_OPTIONS): T | undefined {
  if (opts === undefined) return undefined;
  if (typeof opts !== 'object' || opts === null) throw new ValidationError(`${label}: the options must be an object, got ${opts === null ? 'null' : typeof opts}`);
  refuseUnknown(opts, known, label);
  const { signal, onRetry } = opts as { signal?: unknown; onRetry?: unknown };
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new ValidationError(`${label}: signal must be an AbortSignal`);
  if (onRetry !== undefined && typeof onRetry !== 'function') throw new ValidationError(`${label}: onRetry must be a function`);
  checkLimits(opts, label);
  return opts;
}

const OPTIONS = ['apiKey', 'baseUrl', 'workspaceId', 'timeoutMs', 'maxRetries', 'env'];
/** Options of other clients (the official SDK's among them) that mean something else here, or nothing. */
const NOT_HERE: Record<string, string> = {
  timeout: 'it is timeoutMs here',
  apiVersion: "mailroom speaks the API's /v1",
  fetch: 'mailroom sends with its own HTTP stack (undici); proxies come from HTTPS_PROXY/NO_PROXY in env',
};

/** The per-call options of every method (RequestOptions). */
const REQUEST_OPTIONS: readonly string[] = ['signal', 'timeoutMs', 'maxRetries', 'onRetry'];

/**
 * An option nobody reads would be ignored, and the call would do something else than asked: a
 * misspelt `journal` of emails.batch starts a new run instead of resuming one, and sends again.
 */
export function refuseUnknown(options: object, known: readonly string[], label: string): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    throw new ValidationError(`${label}: unknown option ${name}${NOT_HERE[name] ? `: ${NOT_HERE[name]}` : ` (known: ${known.join(', ')})`}`);
  }
}

/**
 * What `new Mailroom()` takes from its environment (its `env` option, else process.env), here only:
 * the defaults of apiKey, baseUrl and workspaceId, by the variables the CLI reads
 * (src/config/environment.ts). The same `env` also gives the proxies (HTTPS_PROXY, NO_PROXY:
 * src/transport/agent.ts) and emails.batch's journal directory (MAILROOM_STATE_DIR:
 * src/batch/paths.ts), as for the CLI; docs/library.md lists them all.
 */
function defaultsFrom(env: Readonly<Record<string, string | undefined>>): { apiKey?: string; baseUrl?: string; workspaceId?: string } {
  const apiKey = fromEnvironment(env, 'apiKey')?.value;
  const baseUrl = fromEnvironment(env, 'baseUrl')?.value;
  const workspaceId = fromEnvironment(env, 'workspace')?.value;
  return { ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}), ...(workspaceId ? { workspaceId } : {}) };
}

export function connectionFrom(options: MailroomOptions): { connection: Connection; close: () => Promise<void> } {
  refuseUnknown(options, OPTIONS, 'new Mailroom()');
  for (const name of ['apiKey', 'baseUrl', 'workspaceId'] as const) {
    const value: unknown = options[name];
    if (value !== undefined && typeof value !== 'string') throw new ValidationError(`new Mailroom(): ${name} must be a string, got ${value === null ? 'null' : typeof value}`);
  }
  if (options.env !== undefined && (typeof options.env !== 'object' || options.env === null)) throw new ValidationError('new Mailroom(): env must be an object of variable names to values (process.env by default)');
  const env = options.env ?? process.env;
  const fromEnv = defaultsFrom(env);
  const apiKey = options.apiKey ?? fromEnv.apiKey;
  if (!apiKey) throw new ValidationError('new Mailroom(): no API key: pass { apiKey }, or set MAILROOM_API_KEY');
  const keyProblem = apiKeyProblem(apiKey);
  if (keyProblem) throw new ValidationError(`new Mailroom(): ${options.apiKey === undefined ? (fromEnvironment(env, 'apiKey')?.name ?? 'apiKey') : 'apiKey'}: ${keyProblem}`);
  if (options.workspaceId === '') throw new ValidationError('new Mailroom(): workspaceId must not be empty');
  checkLimits(options, 'new Mailroom()');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const baseUrlFrom = options.baseUrl !== undefined ? 'baseUrl' : (fromEnvironment(env, 'baseUrl')?.name ?? 'baseUrl');
  const baseUrl = normalizeBaseUrl(options.baseUrl ?? fromEnv.baseUrl ?? DEFAULT_BASE_URL, `new Mailroom(): ${baseUrlFrom}`, 'apiKey');
  let opened: Promise<{ transport: Transport }> | undefined;
  const connection: Connection = {
    baseUrl,
    apiKey,
    workspaceId: options.workspaceId ?? fromEnv.workspaceId,
    maxRetries,
    env,
    transport: async () => (await (opened ??= openTransport(connection, timeoutMs))).transport,
    // The caller closes it.
    transportWith: async (key) => (await openTransport({ ...connection, apiKey: key }, timeoutMs)).transport,
  };
  const close = async () => {
    const pending = opened;
    opened = undefined;
    await pending?.then(({ transport }) => transport.close(), () => undefined);
  };
  return { connection, close };
}

export async function openTransport(c: Connection, timeoutMs: number): Promise<{ transport: Transport }> {
  const [{ createDispatcher }, { createHttpTransport }, { VERSION }] = await Promise.all([
    import('../transport/agent.js'),
    import('../transport/http.js'),
    import('../version.js'),
  ]);
  const { baseUrl } = c;
  const transport = createHttpTransport({
    baseUrl,
    apiKey: c.apiKey,
    dispatcher: await createDispatcher(baseUrl, c.env),
    userAgent: `mailroom-cli/${VERSION} (library)`,
    timeoutMs,
    maxRetries: c.maxRetries,
    authHint: 'check the apiKey given to new Mailroom() (or MAILROOM_API_KEY)',
  });
  return { transport };
}


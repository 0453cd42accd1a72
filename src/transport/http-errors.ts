import { MailroomError, named, type ErrorKind } from '../errors.js';
import { redactText, redactValue } from '../secrets.js';

/*
 * The transport's errors, shared by the CLI and the library: each carries its kind (part of the
 * library's documented errors; the CLI maps it to an exit code in src/exit-codes.ts) and only hints
 * in no program's words (what the API sent, a Retry-After, or what the transport's creator passed as
 * `authHint`). The CLI adds its own, naming its flags, in src/commands/shared/transport-hints.ts.
 */

/** The public API's error body, read by hand: error pages from proxies are often not JSON at all. */
export interface ApiErrorBody {
  statusCode?: number;
  error?: string;
  message?: string;
  allowedEmails?: string[];
  allowedDomains?: string[];
  docsUrl?: string;
}

export interface ApiErrorInit {
  status: number;
  body: unknown;
  requestId?: string;
  retryAfterMs?: number;
  /** What the transport's creator says to do after a 401 (where its key came from decides the fix). */
  authHint?: string;
  /** The base URL the request went to: a 404 under one with a path gets a line naming the path. */
  baseUrl?: string;
}

/**
 * A non-2xx answer from the API, after any retries. The transport throws the subclass its status
 * names (`ApiError.from`): AuthenticationError, PermissionError, RateLimitError, ServerError; other
 * refusals (400, 404, 409, 422) are ApiErrors of kind `rejected`.
 */
export class ApiError extends MailroomError {
  readonly status: number;
  readonly body: unknown;
  readonly detail: ApiErrorBody;
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit) {
    const detail = readErrorBody(init.body);
    const { kind, hints } = classify(init.status, detail, init);
    super(kind, describe(init.status, detail), { hints, requestId: init.requestId });
    this.status = init.status;
    this.body = redactValue(init.body);
    this.detail = detail;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** The error class for this answer's status. */
  static from(init: ApiErrorInit): ApiError {
    const kind = classify(init.status, readErrorBody(init.body), init).kind;
    const Class = kind === 'authentication' ? AuthenticationError : kind === 'permission' ? PermissionError : kind === 'rate-limit' || kind === 'sending-limit' ? RateLimitError : kind === 'server' ? ServerError : ApiError;
    return new Class(init);
  }

  /** The HTTP status (the API's `statusCode`). */
  get statusCode(): number {
    return this.status;
  }

  /** The API's `error` (e.g. "Bad Request"), when it sent one. */
  get error(): string | undefined {
    return this.detail.error;
  }

  /** The API's own `message`, whole (`message` is this line: status, reason and that text). */
  get apiMessage(): string | undefined {
    return this.detail.message;
  }

  get allowedEmails(): string[] | undefined {
    return this.detail.allowedEmails;
  }

  get allowedDomains(): string[] | undefined {
    return this.detail.allowedDomains;
  }

  get docsUrl(): string | undefined {
    return this.detail.docsUrl;
  }
}

named(ApiError, 'ApiError');

/** 401: no key, or one the API does not know. */
export class AuthenticationError extends ApiError {}
named(AuthenticationError, 'AuthenticationError');

/** 403: the key lacks the permission for the operation. */
export class PermissionError extends ApiError {}
named(PermissionError, 'PermissionError');

/** 429 after the retries (kind `rate-limit`), or the monthly sending limit, a 403 (kind `sending-limit`). */
export class RateLimitError extends ApiError {}
named(RateLimitError, 'RateLimitError');

/** 5xx after the retries: the service failed; the same request may succeed later. */
export class ServerError extends ApiError {}
named(ServerError, 'ServerError');

/**
 * The connection failed: refused, reset or closed before the answer (after the retries), or the
 * answer was not HTTP at all (a broken proxy). `mayHaveBeenSent` says whether the request could
 * have reached the API first.
 */
export class ConnectionError extends MailroomError {
  readonly code: string | undefined;
  /** Whether trying again could help; not for a server that answers plain HTTP to https://. */
  readonly transient: boolean;
  constructor(url: string, code: string | undefined, cause: unknown, how: 'unreachable' | 'lost' | 'garbled' = 'unreachable') {
    // An https:// URL naming a plain HTTP server (a local sandbox): OpenSSL's "wrong version number"
    // says nothing to most people, the likely mistake does.
    const plainHttp = code === 'ERR_SSL_WRONG_VERSION_NUMBER' && url.startsWith('https:');
    const reason = plainHttp ? 'it answers plain HTTP, not TLS' : cause instanceof Error && cause.message ? cause.message : (code ?? 'connection failed');
    const hints = plainHttp ? [`did you mean ${url.replace(/^https:/, 'http:')}? (the base URL says https://)`] : [];
    const what = how === 'garbled' ? `the answer from ${url} was not HTTP` : how === 'lost' ? `lost the connection to ${url} before its answer` : `could not reach ${url}`;
    super('connection', `${what}: ${reason}`, { cause, hints });
    this.code = code;
    this.transient = !plainHttp;
  }
}
named(ConnectionError, 'ConnectionError');

/** Connection failures that happen before a byte of the request is written: it never reached the API. */
const BEFORE_SENDING = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|ERR_TLS_.*|ERR_SSL_.*|CERT_.*|UNABLE_TO_.*|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)$/;

export function failedBeforeSending(code: string | undefined): boolean {
  return code !== undefined && BEFORE_SENDING.test(code);
}

/** No complete answer within the transport's timeout. */
export class TimeoutError extends MailroomError {
  readonly timeoutMs: number;
  constructor(url: string, timeoutMs: number, cause?: unknown) {
    super('timeout', `no answer from ${url} within ${timeoutMs} ms`, { cause });
    this.timeoutMs = timeoutMs;
  }
}
named(TimeoutError, 'TimeoutError');

/** The caller's signal aborted a request in flight (the CLI's Ctrl-C: exit 130 like any interruption). */
export class AbortedError extends MailroomError {
  constructor(cause?: unknown) {
    super('aborted', 'interrupted while waiting for the API', { cause });
  }
}
named(AbortedError, 'AbortedError');

const strings = (v: unknown): string[] | undefined =>
  typeof v === 'string' ? [v] : Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;

/** Error text on one line, clipped: a proxy's page or a stack trace must not flood the terminal. */
const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 500 ? `${flat.slice(0, 500)}…` : flat;
};

/**
 * What the server said went wrong, wherever it put it: `message` as a string or a list (the spec),
 * an object, `error: { message }`, or `errors: [{ message } | string]` (other servers and gateways).
 */
function messageOf(b: Record<string, unknown>): string | undefined {
  const texts = (v: unknown): string[] => {
    if (typeof v === 'string') return v.trim() ? [v] : [];
    if (Array.isArray(v)) return v.flatMap(texts);
    if (v && typeof v === 'object') {
      const m = (v as Record<string, unknown>).message;
      return m === undefined ? [JSON.stringify(v)] : texts(m);
    }
    return [];
  };
  const found = [b.message, typeof b.error === 'object' ? b.error : undefined, b.errors].map((v) => texts(v).join('; ')).find(Boolean);
  return found ? oneLine(found) : undefined;
}

export function readErrorBody(body: unknown): ApiErrorBody {
  if (typeof body === 'string') return body.trim() ? { message: redactText(oneLine(body)) } : {};
  if (!body || typeof body !== 'object') return {};
  const b = body as Record<string, unknown>;
  const out: ApiErrorBody = {};
  if (typeof b.statusCode === 'number') out.statusCode = b.statusCode;
  if (typeof b.error === 'string') out.error = redactText(oneLine(b.error));
  const message = messageOf(b);
  if (message) out.message = redactText(message);
  const emails = strings(b.allowedEmails);
  if (emails) out.allowedEmails = emails;
  const domains = strings(b.allowedDomains);
  if (domains) out.allowedDomains = domains;
  if (typeof b.docsUrl === 'string') out.docsUrl = redactText(b.docsUrl);
  return out;
}

function describe(status: number, d: ApiErrorBody): string {
  const reason = d.error ?? REASONS[status] ?? 'error';
  return d.message && d.message !== reason ? `API ${status} ${reason}: ${d.message}` : `API ${status} ${reason}`;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict',
  422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway',
  503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/**
 * `https://host/api` answering 404: the API lives at the host root and requests go to
 * `<base URL>/v1/...`, so a path after the host is the likely mistake (a proxy that serves the API
 * under a path is the exception, hence "did you mean").
 */
function pathHint(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!path) return undefined;
  return `the base URL ${baseUrl} has a path after the host (${path}): the API is at the host root (requests go to <base URL>/v1/...); did you mean ${url.origin}?`;
}

/** Status → kind (the CLI's exit codes follow from the kind, src/exit-codes.ts). */
function classify(status: number, d: ApiErrorBody, init: ApiErrorInit): { kind: ErrorKind; hints: string[] } {
  const hints: string[] = [];
  if (d.allowedEmails?.length) hints.push(`allowed senders: ${d.allowedEmails.join(', ')}`);
  if (d.allowedDomains?.length) hints.push(`allowed domains: ${d.allowedDomains.join(', ')}`);
  if (d.docsUrl) hints.push(`docs: ${d.docsUrl}`);
  let kind: ErrorKind;
  if (status === 401) {
    kind = 'authentication';
    if (init.authHint) hints.push(init.authHint);
  } else if (status === 403) {
    // The same status means "monthly sending limit" on sends and "no permission" on key endpoints;
    // a permission message may quote a key's name, which can itself contain "limit".
    const text = `${d.message ?? ''} ${d.error ?? ''}`;
    kind = !/permission/i.test(text) && /limit/i.test(text) ? 'sending-limit' : 'permission';
    if (kind === 'permission') hints.push('this key lacks the permission for that operation');
  } else if (status === 429) {
    kind = 'rate-limit';
    if (init.retryAfterMs !== undefined) hints.push(`the API asks to wait ${Math.ceil(init.retryAfterMs / 1000)} s before retrying`);
  } else if (status >= 500) {
    kind = 'server';
    hints.push('the service had a problem; try again later');
  } else if (status >= 400) {
    kind = 'rejected';
    const hint = status === 404 && init.baseUrl !== undefined ? pathHint(init.baseUrl) : undefined;
    if (hint) hints.push(hint);
  } else {
    kind = 'unexpected-response';
  }
  return { kind, hints };
}

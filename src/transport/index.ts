/**
 * The contract between the API layer and HTTP (team brief, "Transport"). This module holds only
 * types and error classes, so importing it never loads undici; `createTransport` (transport/create.ts), reached through the command context (src/commands/context.ts),
 * builds the real one (transport/http.ts) on first use.
 */
export interface RequestOptions {
  method: 'GET' | 'POST' | 'DELETE';
  /** Begins with `/v1/`; appended to the base URL. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A POST is retried only when true (its body carries idempotency keys). */
  idempotent?: boolean;
  maxRetries?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Aborts only the wait for a pacing slot (the request is then never sent), not an attempt in
   * flight; `signal` by default. The batch sender lets requests in flight settle after Ctrl-C.
   */
  pacingSignal?: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
  /**
   * Each HTTP answer's status and headers as they arrive, an error or a retried one too (the last
   * call is the answer the request ended with): `api -i` shows them whatever the status.
   */
  onAnswer?: (status: number, headers: ApiResponse['headers']) => void;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  reason: string;
  /** The HTTP status that caused the retry, if an answer came. */
  status?: number;
  /** The connection error's code (ECONNREFUSED, ...), if the attempt got no answer. */
  code?: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  requestId?: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface Transport {
  request<T = unknown>(opts: RequestOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export { AbortedError, ApiError, ConnectionError, TimeoutError, type ApiErrorBody } from './http-errors.js';

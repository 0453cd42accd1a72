/** Statuses worth another attempt: the request itself was fine, the service was busy or broken. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export const BASE_DELAY_MS = 300;
export const MAX_DELAY_MS = 10_000;
/** A Retry-After longer than this is reported to the user rather than slept through. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Exponential backoff with FULL jitter (AWS architecture blog): a uniform pick in [0, cap), so
 * many clients retrying at once spread out instead of hammering the service in waves.
 */
export function backoffMs(attempt: number, random: () => number = Math.random, baseMs = BASE_DELAY_MS): number {
  const cap = Math.min(MAX_DELAY_MS, baseMs * 2 ** attempt);
  return Math.floor(random() * cap);
}

/** `Retry-After` is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * A POST is retried only when the caller says it is idempotent (its body carries idempotency keys):
 * after a lost response the service may already have sent the email.
 */
export function mayRetry(method: string, idempotent: boolean | undefined): boolean {
  return method !== 'POST' || idempotent === true;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

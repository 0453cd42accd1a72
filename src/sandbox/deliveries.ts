import { sign, SIGNATURE_HEADER } from '../webhook/signature.js';
import type { Envelope } from './events.js';
import type { DeliveryRecord, SandboxState, StoredWebhook } from './state.js';

/** Older attempts are dropped past this many, so a long-running sandbox keeps a bounded log. */
export const DELIVERY_LOG_LIMIT = 10_000;

export interface DelivererOptions {
  retryDelaysMs: number[];
  timeoutMs: number;
  onRecord?: () => void;
}

/**
 * Signed webhook deliveries: the exact envelope bytes, signed with the webhook's token, POSTed to
 * its URL; a non-2xx answer or a connection failure is retried after each configured delay. Runs
 * detached from the API request that caused it, so it never slows an answer.
 */
export class Deliverer {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<AbortController>();
  private closed = false;
  /** Bumped by `cancelPending`: attempts begun before it are neither recorded nor retried. */
  private generation = 0;

  constructor(
    private readonly state: SandboxState,
    private readonly options: DelivererOptions,
  ) {}

  /** Webhooks of the workspace subscribed to the event. */
  subscribers(event: string): StoredWebhook[] {
    const out: StoredWebhook[] = [];
    for (const hook of this.state.webhooks.values()) if (hook.events.includes(event)) out.push(hook);
    return out;
  }

  publish(env: Envelope): number {
    const hooks = this.subscribers(env.event);
    if (hooks.length === 0) return 0;
    const body = JSON.stringify(env);
    for (const hook of hooks) void this.attempt(hook, env.event, body, 1);
    return hooks.length;
  }

  private async attempt(hook: StoredWebhook, event: string, body: string, attempt: number): Promise<void> {
    // A webhook deleted, or no longer subscribed to the event, while a retry waits gets no more deliveries.
    if (this.closed || this.state.webhooks.get(hook.id) !== hook || !hook.events.includes(event)) return;
    const generation = this.generation;
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    const started = Date.now();
    const record: DeliveryRecord = { webhookId: hook.id, event, url: hook.url, attempt, durationMs: 0, createdAt: new Date(started).toISOString() };
    try {
      const res = await fetch(hook.url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: sign(hook.token, body), 'user-agent': 'mailroom-sandbox' },
        signal: controller.signal,
        redirect: 'manual',
      });
      await res.arrayBuffer().catch(() => undefined);
      record.statusCode = res.status;
      if (!res.ok) record.error = `receiver answered ${res.status}`;
    } catch (err) {
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      const cause = (reason as { cause?: { code?: string; message?: string } }).cause;
      record.error = cause?.code ?? cause?.message ?? (reason instanceof Error ? reason.message : String(reason));
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
    if (this.closed || generation !== this.generation) return;
    record.durationMs = Date.now() - started;
    this.record(record);
    const delay = this.options.retryDelaysMs[attempt - 1];
    if (record.error !== undefined && delay !== undefined) {
      const retry = setTimeout(() => {
        this.timers.delete(retry);
        void this.attempt(hook, event, body, attempt + 1);
      }, delay);
      retry.unref();
      this.timers.add(retry);
    }
  }

  private record(rec: DeliveryRecord): void {
    const log = this.state.deliveries;
    log.push(rec);
    if (log.length > DELIVERY_LOG_LIMIT) log.splice(0, log.length - DELIVERY_LOG_LIMIT);
    this.options.onRecord?.();
  }

  /** `POST /_sandbox/reset`: drops pending retries and attempts in flight, so none lands in the emptied log. */
  cancelPending(reason = 'sandbox reset'): void {
    this.generation += 1;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const c of this.inFlight) c.abort(new Error(reason));
  }

  /** Stops pending retries and aborts attempts in flight. */
  close(): void {
    this.closed = true;
    this.cancelPending('sandbox closed');
  }
}

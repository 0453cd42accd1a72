import Agent from 'undici/lib/dispatcher/agent.js';
import request from 'undici/lib/api/api-request.js';
import { isLoopback } from '../config/url.js';
import { sign, SIGNATURE_HEADER } from '../webhook/signature.js';
import type { Envelope } from './events.js';
import { droppedReason, randomToken, type DeliveryRecord, type SandboxState, type StoredWebhook } from './state.js';

/** Attempts in flight at once; more wait their turn, so a flood of events cannot starve the API. */
export const MAX_DELIVERIES_IN_FLIGHT = 16;

export interface DelivererOptions {
  retryDelaysMs: number[];
  timeoutMs: number;
  /** Deliver to any host; else only to this machine (see offMachine). */
  allowRemote?: boolean;
  /** Deliveries waiting for a turn or a retry, at most; past it, new ones are dropped (recorded and counted). */
  maxQueued?: number;
}

/**
 * Why a webhook URL is not delivered to by default: its host is not this machine. Loopback
 * addresses, `localhost` and `*.localhost`, and `*.test` (reserved for testing, never a public
 * name: the project's tests and a developer's own /etc/hosts entries) are; anything else would
 * send the workspace's events off the machine, which the sandbox promises not to do. Decided from
 * the URL alone, without a DNS lookup.
 */
export function offMachine(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  } catch {
    return `${url} is not a URL`;
  }
  if (isLoopback(host) || host === 'test' || host.endsWith('.test')) return undefined;
  return `${host} is not on this machine: the sandbox delivers only to loopback, localhost and *.test hosts (start it with --allow-remote-webhooks to deliver elsewhere)`;
}

/**
 * Signed webhook deliveries: the exact envelope bytes, signed with the webhook's token, POSTed to
 * its URL; a non-2xx answer or a connection failure is retried after each configured delay. Runs
 * detached from the API request that caused it, over kept-alive connections (undici), at most
 * MAX_DELIVERIES_IN_FLIGHT at a time.
 */
export class Deliverer {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<AbortController>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private closed = false;
  /** Publishes queued and attempts begun (waiting for a turn included) that have not ended yet. */
  private busy = 0;
  private settledWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  /** Bumped by `cancelPending`: attempts begun before it are neither recorded nor retried. */
  private generation = 0;
  private readonly agent: Agent;

  constructor(
    private readonly state: SandboxState,
    private readonly options: DelivererOptions,
  ) {
    this.agent = new Agent({ keepAliveTimeout: 4_000, connect: { timeout: options.timeoutMs } });
  }

  /** Webhooks of the workspace subscribed to the event. */
  subscribers(event: string): StoredWebhook[] {
    const out: StoredWebhook[] = [];
    // A PAUSED or BANNED webhook keeps its subscriptions but is sent nothing.
    for (const hook of this.state.webhooks.values()) if (hook.events.includes(event) && (hook.status ?? 'ACTIVE') === 'ACTIVE') out.push(hook);
    return out;
  }

  /** Publishes after the current request's answer is on its way (the event follows from it). */
  publishSoon(env: Envelope): void {
    this.busy += 1;
    setImmediate(() => {
      try {
        this.publish(env);
      } finally {
        this.done();
      }
    });
  }

  /**
   * Resolves once no delivery is queued or in flight: every attempt begun so far has reached its
   * receiver (or failed) and been recorded. Retries waiting for their delay do not count.
   */
  settled(): Promise<void> {
    if (this.busy === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /**
   * Resolves once nothing more will be attempted until a new event is published or resent: no
   * delivery is queued, in flight or waiting for a retry's delay. What a test awaits to show that
   * something was not delivered, instead of sleeping.
   */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.busy === 0 && this.timers.size === 0;
  }

  private done(): void {
    this.busy -= 1;
    this.wake();
  }

  private wake(): void {
    if (this.busy === 0) for (const resolve of this.settledWaiters.splice(0)) resolve();
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  publish(env: Envelope): number {
    const hooks = this.subscribers(env.event);
    if (hooks.length === 0) return 0;
    const body = JSON.stringify(env);
    for (const hook of hooks) void this.attempt(hook, env.event, body, 1);
    return hooks.length;
  }

  /**
   * The inbox's "resend": the same bytes again to the same webhook, signed with its current token,
   * as a new delivery (retried like any other). Undefined when the attempt or its webhook is gone.
   */
  resend(id: string): DeliveryRecord | undefined {
    const original = this.state.deliveries.find((d) => d.id === id);
    const hook = original && this.state.webhooks.get(original.webhookId);
    if (!original || original.body === undefined || !hook) return undefined;
    void this.attempt(hook, original.event, original.body, 1, id);
    return original;
  }

  /** Deliveries waiting for a turn or for a retry's delay. */
  private get queued(): number {
    return this.waiting.length + this.timers.size;
  }

  private get full(): boolean {
    return this.queued >= (this.options.maxQueued ?? Infinity);
  }

  /** A delivery the queue has no room for: recorded as not delivered and counted, never silently lost. */
  private drop(hook: StoredWebhook, event: string, body: string, attempt: number, resendOf?: string): void {
    const record = this.notDelivered(hook, event, body, attempt, droppedReason(this.options.maxQueued));
    if (resendOf !== undefined) record.resendOf = resendOf;
    this.state.addDroppedDelivery(record);
  }

  private async attempt(hook: StoredWebhook, event: string, body: string, attempt: number, resendOf?: string): Promise<void> {
    const generation = this.generation;
    if (this.running >= MAX_DELIVERIES_IN_FLIGHT && this.full && !this.closed) return this.drop(hook, event, body, attempt, resendOf);
    this.busy += 1;
    await this.turn();
    try {
      // A webhook deleted, or no longer subscribed to the event, while a retry waits gets no more deliveries.
      if (this.closed || generation !== this.generation || this.state.webhooks.get(hook.id) !== hook || !hook.events.includes(event)) return;
      const refused = this.options.allowRemote ? undefined : offMachine(hook.url);
      const record = refused === undefined ? await this.post(hook, event, body, attempt) : this.notDelivered(hook, event, body, attempt, refused);
      if (this.closed || generation !== this.generation) return;
      if (resendOf !== undefined) record.resendOf = resendOf;
      const delay = this.options.retryDelaysMs[attempt - 1];
      // Not sent on purpose: a retry would be refused the same way.
      const failed = record.error !== undefined && record.notDelivered === undefined && delay !== undefined;
      const retrying = failed && !this.full;
      if (retrying) record.nextRetryAt = new Date(Date.now() + delay).toISOString();
      this.state.addDelivery(record);
      if (failed && !retrying) this.drop(hook, event, body, attempt + 1, resendOf);
      if (retrying) {
        const retry = setTimeout(() => {
          this.timers.delete(retry);
          void this.attempt(hook, event, body, attempt + 1, resendOf);
        }, delay);
        retry.unref();
        this.timers.add(retry);
      }
    } finally {
      this.endTurn();
      this.done();
    }
  }

  /** The record of a delivery not sent, with why: in the log like any attempt, never retried. */
  private notDelivered(hook: StoredWebhook, event: string, body: string, attempt: number, reason: string): DeliveryRecord {
    const at = new Date().toISOString();
    return { id: `dlv_${randomToken(16)}`, webhookId: hook.id, event, url: hook.url, attempt, durationMs: 0, createdAt: at, body, signature: sign(hook.token, body), error: 'not delivered', notDelivered: reason };
  }

  /** One POST within the timeout; what happened, as the delivery log records it. */
  private async post(hook: StoredWebhook, event: string, body: string, attempt: number): Promise<DeliveryRecord> {
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    const started = Date.now();
    const signature = sign(hook.token, body);
    const record: DeliveryRecord = {
      id: `dlv_${randomToken(16)}`,
      webhookId: hook.id,
      event,
      url: hook.url,
      attempt,
      durationMs: 0,
      createdAt: new Date(started).toISOString(),
      body,
      signature,
    };
    try {
      const url = new URL(hook.url);
      const res = await request.call(this.agent, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature, 'user-agent': 'mailroom-sandbox' },
        signal: controller.signal,
      });
      await res.body.dump().catch(() => undefined);
      record.statusCode = res.statusCode;
      if (res.statusCode < 200 || res.statusCode >= 300) record.error = `receiver answered ${res.statusCode}`;
    } catch (err) {
      const reason = (controller.signal.aborted ? controller.signal.reason : err) as { code?: string; message?: string } | undefined;
      record.error = reason?.code ?? reason?.message ?? String(reason);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
    record.durationMs = Date.now() - started;
    return record;
  }

  private async turn(): Promise<void> {
    if (this.running < MAX_DELIVERIES_IN_FLIGHT) {
      this.running += 1;
      return;
    }
    // endTurn hands its slot straight to the first waiter.
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private endTurn(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }

  /** `POST /_sandbox/reset`: drops pending retries and attempts in flight, so none lands in the emptied log. */
  cancelPending(reason = 'sandbox reset'): void {
    this.generation += 1;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const c of this.inFlight) c.abort(new Error(reason));
    this.wake();
  }

  /** Stops pending retries, aborts attempts in flight, and closes the connections to receivers. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelPending('sandbox closed');
    await this.agent.destroy().catch(() => undefined);
  }
}

/**
 * The types of `mailroom-cli/sandbox` (docs/sandbox-in-your-tests.md). This module imports
 * nothing: its declarations ship as they are (scripts/build.mjs), so a user's type checker needs
 * no other package. The sandbox's own modules use these same types.
 */

/** The six webhook events of the public API. */
export type SandboxEventName =
  | 'CONTACT_CREATED'
  | 'CONTACT_UPDATED'
  | 'CONTACT_UNSUBSCRIBED'
  | 'CONTACT_RESUBSCRIBED'
  | 'CONTACT_DELETED'
  | 'WORKSPACE_TEAM_MEMBER_JOINED';

export type Scalar = string | number | boolean | null;

export interface TemplateConfig {
  /** Sender used when the request gives none. */
  from?: string;
  /** `{{variable}}` placeholders are filled from the request's `variables`. */
  subject: string;
  /** `{{variable}}` placeholders are filled, HTML-escaped, from the request's `variables`. */
  html: string;
}

export interface FaultConfig {
  /** Share (0 to 1) of /v1 requests answered 503 before any work. */
  errorRate?: number;
  /** Share of /v1 requests whose connection is destroyed before any work. */
  dropRate?: number;
  /** Share of /v1 requests whose work is done but whose connection is destroyed before the answer. */
  lostRate?: number;
  /** Delay added to each /v1 answer, after the work is done (a client that gives up may still have sent). */
  latencyMs?: number;
  /** Delay before each /v1 request is read, before any work (a client that gives up has sent nothing). */
  latencyBeforeMs?: number;
  /**
   * Makes the faults repeatable: an integer from 0 to 2^32 - 1 seeds the draws, so the n-th /v1
   * request meets the same fault on every run (and again after a reset). Each workspace draws from
   * its own sequence, restarted by its own reset only. Without it, Math.random.
   */
  seed?: number;
}

export interface DeliveryConfig {
  /** Delays before each retry of a failed delivery; its length is the number of retries. Default [500, 2000, 8000]. */
  retryDelaysMs?: number[];
  /** Time limit of one delivery attempt. Default 5000. */
  timeoutMs?: number;
  /**
   * Deliver to any URL. Default false: only to this machine (loopback addresses, localhost,
   * *.test); a delivery to another host is recorded as not delivered, with why, and nothing is sent.
   */
  allowRemote?: boolean;
  /**
   * Deliveries that may wait, for a turn (16 are in flight at once) or for a retry's delay, at
   * most. Default 10000. Past it (a receiver that does not answer while events keep coming), a new
   * delivery or retry is dropped: recorded as not delivered, with why, and counted (`dropped` of
   * `GET /_sandbox/deliveries`, the inbox's deliveries page).
   */
  maxQueued?: number;
}

/** A webhook that exists from the start, as if created with `POST /v1/webhooks`. */
export interface WebhookConfig {
  url: string;
  events: SandboxEventName[];
  /** The signing token (8 to 256 characters); generated (`wht_…`) when absent. */
  token?: string;
}

/** What `mailroom sandbox --config <file>` reads; every field optional. */
export interface SandboxConfig {
  /** Sender addresses accepted besides the verified domains. */
  verifiedEmails?: string[];
  /** Sender domains accepted. Default ["example.com"]. */
  verifiedDomains?: string[];
  /** Templates by name, besides the built-in `welcome`. */
  templates?: Record<string, TemplateConfig>;
  /** Emails accepted per calendar month (UTC) before 403. */
  monthlyLimit?: number;
  /** Requests per second per API key before 429 with Retry-After. */
  rateLimit?: number;
  /**
   * How many of the newest emails, webhook delivery attempts, contacts and idempotency keys the
   * sandbox keeps (default 10,000); older ones go, while the counts still cover every email and
   * attempt since the last reset.
   */
  retain?: number;
  faults?: FaultConfig;
  deliveries?: DeliveryConfig;
  webhooks?: WebhookConfig[];
}

/** An email the sandbox caught, as `GET /_sandbox/emails` lists it. */
export interface SandboxEmail {
  /** The id the API answered (`trs_…`). */
  id: string;
  messageId: string;
  /** SCHEDULED until its `sendAt`, then SENT. */
  status: 'SENT' | 'SCHEDULED';
  type: 'raw' | 'templated';
  to: string;
  /** As sent; `Name <address>` when the request gave `fromName` with a bare address. */
  from?: string;
  fromName?: string;
  /** As sent, or the template's subject with the variables filled in. */
  subject?: string;
  template?: string;
  /** As sent: JSON values, nested ones too. */
  variables?: Record<string, unknown>;
  /** As sent, or the template's HTML with the variables filled in. */
  html: string;
  /** As sent, or generated from `html` (as React Email's plain-text rendering does). */
  text: string;
  previewText?: string;
  /** As sent: one address, or several. */
  replyTo?: string | string[];
  contactProperties?: Record<string, Scalar>;
  settings: { trackClicks: boolean; trackOpens: boolean };
  groupBy?: string;
  idempotencyKey?: string;
  /** ISO 8601, UTC. */
  sendAt?: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  /** The x-request-id of the API call that sent it. */
  requestId?: string;
}

/** A link of a caught email's HTML, in document order. */
export interface EmailLink {
  /** The `href` as your app wrote it (entities decoded): the sandbox never rewrites links for click tracking. */
  href: string;
  /** The link's visible text, whitespace squeezed; an image link's `alt`. */
  text: string;
}

/** An email the sandbox caught, with what a test asks of it (docs/sandbox-in-your-tests.md). */
export interface CaughtEmail extends SandboxEmail {
  /** Every `<a href>` (and `<area href>`) of the HTML, in order. */
  links(): EmailLink[];
  /**
   * The one-time codes and tokens in the email, distinct, in the order found: whole words of 4 to 8
   * digits (not a year, price, date, time or part of a longer number) and of 6 to 12 capital letters
   * and digits holding both, in the text and the HTML's visible text; then the values of link
   * parameters named token, code, otp, key, verify, confirm, reset, magic (and the like). With a
   * pattern: its matches (its first group when it has one) in the text and the HTML's visible text.
   */
  codes(pattern?: RegExp): string[];
  /** The headers it would travel with, lower-case names: from, to, subject, reply-to, message-id, date. */
  readonly headers: Record<string, string>;
}

/** What the sandbox POSTs to a webhook: the public API's event envelope. */
export interface SandboxEnvelope {
  event: SandboxEventName;
  createdAt: string;
  data: Record<string, unknown>;
}

/** One attempt to deliver an event to a webhook; a retried delivery has one per attempt. */
export interface SandboxDelivery {
  id: string;
  webhookId: string;
  event: SandboxEventName;
  url: string;
  /** 1 for the first attempt, then 2, 3... for the retries of a failed one. */
  attempt: number;
  /** The receiver's answer; absent when it could not be reached. */
  statusCode?: number;
  /** Why the attempt failed (a non-2xx answer, a connection error, a timeout); absent on success. */
  error?: string;
  durationMs: number;
  createdAt: string;
  /** The exact bytes POSTed (JSON of the envelope). */
  body: string;
  /** The `X-Smashsend-Signature` header sent with them: hex HMAC-SHA256 of `body` keyed with the webhook's token. */
  signature: string;
  /** `body`, parsed. */
  payload: SandboxEnvelope;
  /** When the next attempt is due, for a failed attempt that will be retried. */
  nextRetryAt?: string;
  /** Set when nothing was sent because the URL is off this machine (see DeliveryConfig.allowRemote): why; `error` is "not delivered". */
  notDelivered?: string;
}

export interface StartSandboxOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** The secret of the ready API key (8 to 256 characters without spaces); generated when absent. */
  apiKey?: string;
  /** The same settings as `mailroom sandbox --config`. */
  config?: SandboxConfig;
  /** A JSON file of those settings, read as `--config` reads it; fields of `config` override its. */
  configFile?: string;
  /** Where the sandbox's own log lines go (internal errors). Default: console.error. */
  log?: (line: string) => void;
}

/** Which emails `waitForEmail` and `waitForEmails` wait for, and how long. */
export interface WaitForEmailOptions {
  /** The recipient's address, whole (case-insensitive). */
  to?: string;
  /** A part of the subject (case-insensitive). */
  subject?: string;
  /** Default 5000; the sandbox caps one wait at 600000. */
  timeoutMs?: number;
}

/**
 * A workspace of its own in a running sandbox, for one test file or one parallel worker: its own
 * key, and its own emails, contacts, webhooks, deliveries and idempotency keys. What it sends (with
 * its `apiKey`), lists, waits for and resets is its own; no other workspace sees it.
 */
export interface SandboxWorkspace {
  /** The sandbox's root: point your app's client here, with `apiKey`. */
  readonly baseUrl: string;
  /** A ready API key of this workspace (role API_USER). */
  readonly apiKey: string;
  readonly workspaceId: string;
  readonly name: string;
  /** Every email this workspace's keys sent, oldest first. */
  emails(): Promise<CaughtEmail[]>;
  waitForEmail(options?: WaitForEmailOptions): Promise<CaughtEmail>;
  waitForEmails(count: number, options?: WaitForEmailOptions): Promise<CaughtEmail[]>;
  /** This workspace's webhook delivery attempts, oldest first. */
  deliveries(): Promise<SandboxDelivery[]>;
  /** Resolves to this workspace's attempts once at least `count` are recorded; rejects after `timeoutMs` (default 5000). */
  waitForDeliveries(count: number, options?: { timeoutMs?: number }): Promise<SandboxDelivery[]>;
  /** Resolves to this workspace's attempts once none is queued, in flight or waiting for a retry; rejects after `timeoutMs` (default 5000). */
  waitForIdle(options?: { timeoutMs?: number }): Promise<SandboxDelivery[]>;
  /**
   * Lets this workspace's deliveries already on their way reach their receivers, then empties its
   * emails, contacts, deliveries, idempotency keys, counts and its keys' rate limits, and starts its
   * seeded fault sequence again; its keys and webhooks stay. Other workspaces are untouched: their
   * emails, counts, rate-limit windows and fault sequences go on as they were.
   */
  reset(): Promise<void>;
  /** Fires an event to this workspace's subscribed webhooks. */
  trigger(event: SandboxEventName, options?: { email?: string }): Promise<SandboxEnvelope>;
  /**
   * Deletes this workspace from the sandbox, for a test's teardown (`afterAll`): its key is refused
   * from then on, its waits under way reject saying so, its deliveries, retries and scheduled emails
   * stop, and a sandbox run with `--data` no longer counts or keeps it. Every other member then
   * rejects saying the workspace was deleted; calling it again does nothing.
   */
  delete(): Promise<void>;
}

/** A sandbox running in another process, reached with `connectSandbox(baseUrl)`: its first workspace (which cannot be deleted), and new ones. */
export interface SandboxConnection extends Omit<SandboxWorkspace, 'apiKey' | 'workspaceId' | 'name' | 'delete'> {
  /** A new workspace with its own key. */
  workspace(options?: { name?: string }): Promise<SandboxWorkspace>;
}

export interface Sandbox {
  /** Root of the API, e.g. `http://127.0.0.1:53817` (requests go to `${baseUrl}/v1/...`). */
  readonly baseUrl: string;
  /** A ready API key of the workspace (role API_USER). */
  readonly apiKey: string;
  readonly workspaceId: string;
  /** Every email caught so far, oldest first. */
  emails(): Promise<CaughtEmail[]>;
  /** Every webhook delivery attempt so far, oldest first. */
  deliveries(): Promise<SandboxDelivery[]>;
  /**
   * Resolves to the first email caught that matches (one caught before the call counts), as soon
   * as it is caught; rejects after `timeoutMs` (default 5000) naming what it waited for.
   */
  waitForEmail(options?: WaitForEmailOptions): Promise<CaughtEmail>;
  /** Resolves to the first `count` matching emails, oldest first, once that many are caught; rejects after `timeoutMs`. */
  waitForEmails(count: number, options?: WaitForEmailOptions): Promise<CaughtEmail[]>;
  /**
   * Resolves once at least `count` delivery attempts are recorded (deliveries run after the API
   * call that caused them has answered); rejects after `timeoutMs` (default 5000).
   */
  waitForDeliveries(count: number, options?: { timeoutMs?: number }): Promise<SandboxDelivery[]>;
  /**
   * Resolves to every delivery attempt once none is queued, in flight or waiting for a retry, so no
   * more follows until your app causes an event: await it to assert what was not delivered.
   * Rejects after `timeoutMs` (default 5000).
   */
  waitForIdle(options?: { timeoutMs?: number }): Promise<SandboxDelivery[]>;
  /**
   * Lets the deliveries already on their way reach their receivers (each within the delivery
   * timeout), then empties emails, contacts, deliveries, idempotency keys, counts and its keys' rate
   * limits, drops pending retries and starts its seeded fault sequence again; keys and webhooks stay.
   * Only the first workspace's: the others (`workspace()`) are untouched.
   */
  reset(): Promise<void>;
  /** Fires an event to the subscribed webhooks, as `mailroom sandbox trigger` does; resolves to the envelope sent. */
  trigger(event: SandboxEventName, options?: { email?: string }): Promise<SandboxEnvelope>;
  /**
   * A new workspace with its own key, for one test file or worker: what it sends, lists, waits for
   * and resets is its own. `reset()` and `emails()` here act on the first workspace only.
   */
  workspace(options?: { name?: string }): Promise<SandboxWorkspace>;
  /** Stops listening, frees the port and every timer, and drops pending deliveries. */
  close(): Promise<void>;
}

/**
 * The library's public types (src/library/), written out by hand: the wire schemas (src/schema/) are zod, which
 * is bundled into dist/ and not installed beside it, so declarations must not refer to it.
 * test/library/types.test.ts checks that these match what the schemas produce.
 */

export type EmailStatus = 'SCHEDULED' | 'SENT' | 'FAILED' | 'CANCELLED' | 'DELIVERED';
export type KeyRole = 'API_USER' | 'EDITOR' | 'VIEWER';
export type WebhookEventName =
  | 'CONTACT_CREATED'
  | 'CONTACT_UPDATED'
  | 'CONTACT_UNSUBSCRIBED'
  | 'CONTACT_RESUBSCRIBED'
  | 'CONTACT_DELETED'
  | 'WORKSPACE_TEAM_MEMBER_JOINED';

/** Per-call options of every method. */
export interface RequestOptions {
  /** Stops waiting (and retrying) when aborted; the call rejects with AbortedError. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call, ms: the whole answer must arrive within it. */
  timeoutMs?: number;
  /** Overrides the client's retry budget for this call. */
  maxRetries?: number;
  /** Called before each retry (status or connection error, and the delay, honouring Retry-After). */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  reason: string;
  status?: number;
  code?: string;
}

type Scalar = string | number | boolean | null;

interface EmailCommon {
  /** Recipient address. */
  to: string;
  settings?: { trackClicks?: boolean; trackOpens?: boolean };
  /** Analytics grouping identifier. */
  groupBy?: string;
  /** Schedule: a Date, or ISO 8601 with a time zone; in the future and at most 90 days ahead. */
  sendAt?: string | Date;
  /** Duplicate-send guard: generated (a UUID) when not given, so a retried request never sends twice. */
  idempotencyKey?: string;
}

interface RawFields extends EmailCommon {
  /** Sender address, or "Name <address>". */
  from: string;
  fromName?: string;
  subject: string;
  /** Plain-text body; the service generates one from the HTML when omitted. */
  text?: string;
  previewText?: string;
  replyTo?: string;
  contactProperties?: Record<string, Scalar>;
}

/** Raw HTML. */
export interface RawEmail extends RawFields {
  html: string;
}

/** A stored template, by name. */
export interface TemplateEmail extends EmailCommon {
  template: string;
  variables?: Record<string, Scalar>;
}

/** What a React element looks like, without depending on React's types. */
export interface ReactElementLike {
  type: unknown;
  props: unknown;
  key: unknown;
}

/** A React element, rendered locally with your @react-email/render (an optional peer dependency). */
export interface ReactEmail extends RawFields {
  react: ReactElementLike;
}

/** A React email component file (.tsx/.jsx, default export), bundled and rendered on demand (needs the optional peers esbuild, react, react-dom, @react-email/render). */
export interface ReactFileEmail extends RawFields {
  reactFile: string;
  props?: Record<string, unknown>;
}

export type EmailInput = RawEmail | TemplateEmail | ReactEmail | ReactFileEmail;

/** An email as the API returns it; fields a server omits are undefined or null. */
export interface EmailResult {
  id?: string | null;
  messageId?: string | null;
  status: EmailStatus | (string & {});
  to: string;
  type?: 'raw' | 'templated' | (string & {}) | null;
  from?: string | null;
  subject?: string | null;
  template?: string | null;
  groupBy?: string | null;
  warning?: string | null;
  [field: string]: unknown;
}

export interface SendResult {
  email: EmailResult;
  /** The key the email was sent under: sending again with it never sends twice. */
  idempotencyKey: string;
  requestId: string | undefined;
}

/** One entry the API refused in a sendBatch. */
export interface BatchFailure {
  /** Position in the request. */
  index?: number;
  statusCode?: number;
  error?: string;
  message: string;
  [field: string]: unknown;
}

export interface SendBatchResult {
  /** In request order, without the failed entries. */
  successful: EmailResult[];
  failed: BatchFailure[];
  /** The keys the emails were sent under, in request order. */
  idempotencyKeys: string[];
  requestId: string | undefined;
}

/** Values applied to every batch entry that lacks them (the `mailroom batch` flags of the same names). */
export interface BatchDefaults {
  from?: string;
  subject?: string;
  template?: string;
  html?: string;
  groupBy?: string;
  sendAt?: string | Date;
}

export interface BatchOptions {
  /**
   * The journal: created when missing, resumed when it exists (what it records as sent is skipped,
   * its idempotency keys are reused). Default: a new journal in the state directory
   * (MAILROOM_STATE_DIR, else ~/.local/state/mailroom/batches), named in the summary.
   */
  journal?: string;
  /** One NDJSON line per entry: { index, id?, status?, error? }. */
  report?: string;
  /** The failed entries as NDJSON, ready to fix and send again. */
  failed?: string;
  /** Requests in flight (1..64, default 4); fewer while the API answers 429. */
  concurrency?: number;
  /** Emails per request (1..50, default 50). */
  size?: number;
  /** Input format of a file or byte stream (default: from the extension or the content). */
  format?: 'json' | 'ndjson' | 'csv';
  defaults?: BatchDefaults;
  /** Validate every entry; send nothing. */
  dryRun?: boolean;
  /**
   * Send the entries again although a journal in the state directory records a run of the same
   * entries (the same file, or the same first entries from any source) to the same host with the
   * same key (without it such a run is refused: it would send them twice).
   */
  newRun?: boolean;
  /** Resume a journal made against another API host (its keys are new there: what was sent could be sent again). */
  allowOtherHost?: boolean;
  /** Resume a journal made with another API key (a rotated key of the same account). */
  allowOtherKey?: boolean;
  /** Stops starting requests; those in flight settle and are journaled. The summary says `interrupted`. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for each request of the run, ms. */
  timeoutMs?: number;
  /** Overrides the client's retry budget for each request of the run (a request given up on leaves its entries uncertain: a resume settles them). */
  maxRetries?: number;
  /** Called as the run goes; if it throws, the run stops as an abort does and the call rejects with BatchError. */
  onProgress?: (progress: BatchProgress) => void;
}

export interface BatchProgress {
  read: number;
  sent: number;
  failed: number;
  skipped: number;
  /** Requests allowed in flight now (below `concurrency` while the API answers 429). */
  concurrency: number;
}

export interface BatchEntryError {
  index: number;
  line: number;
  error: string;
}

export interface BatchSummary {
  total: number;
  /** Accepted by the API: sent now or, with a sendAt in the future, scheduled. */
  sent: number;
  /** Of `sent`: accepted as SCHEDULED (a sendAt in the future), not sent yet. */
  scheduled: number;
  failed: number;
  /** Of `failed`: entries that failed local validation (never sent). */
  invalid: number;
  /** Of `failed`: given up on after retries; the API may have them; a resume settles them. */
  uncertain: number;
  /** Sent by an earlier run of the same journal. */
  skipped: number;
  /** Entries repeating an earlier entry's own idempotencyKey with the same content: not sent again. */
  duplicates: number;
  /** Read but not sent because the run stopped. */
  unsent: number;
  durationMs: number;
  emailsPerSecond: number;
  runId: string;
  /** The journal's path (null in a dry run). */
  journal: string | null;
  report?: string;
  failedFile?: string;
  dryRun: boolean;
  interrupted: boolean;
  resumed: boolean;
  /** The first few entry errors. */
  errors: BatchEntryError[];
}

/**
 * What emails.batch reads: a file path, any iterable or async iterable of email objects (an
 * array, a generator, an object-mode stream), or a byte stream (a file or HTTP stream) of JSON,
 * NDJSON or CSV.
 */
export type BatchSource = string | Iterable<unknown> | AsyncIterable<unknown>;

export interface ApiKey {
  id: string;
  displayName: string;
  role: KeyRole | (string & {});
  status: 'ACTIVE' | 'ARCHIVED' | (string & {});
  /** The full secret only in the answer to create (and rotate); masked or absent otherwise. */
  secretKey?: string | null;
  createdAt?: string | null;
  updatedAt?: string | null;
  [field: string]: unknown;
}

export interface KeyPage {
  items: ApiKey[];
  hasMore: boolean;
  /** Where the next page begins; null or undefined on the last page. */
  startAt: string | null | undefined;
}

export interface ListKeysQuery {
  /** Keys per page (1..100). */
  limit?: number;
  sort?: 'createdAt.asc' | 'createdAt.desc';
  startAt?: string;
}

/** `await` it for one page; `for await` it for every key across the pages. */
export interface KeyList extends PromiseLike<KeyPage>, AsyncIterable<ApiKey> {
  /** Every page, one at a time. */
  pages(): AsyncIterable<KeyPage>;
}

export interface KeyCheckResult {
  status?: 'SUCCEED' | (string & {}) | null;
  displayName?: string | null;
  role?: KeyRole | (string & {}) | null;
  [field: string]: unknown;
}

export interface RotateOptions extends Pick<RequestOptions, 'signal'> {
  /** Stores the new secret; runs after the new key passed its check and before the old key is deleted. */
  save?: (secret: string) => Promise<void>;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  /** The signing token: in full only in the answer to create. */
  token?: string | null;
  createdAt?: string | null;
  displayName?: string | null;
  status?: 'ACTIVE' | 'PAUSED' | 'BANNED' | (string & {}) | null;
  workspaceId?: string | null;
  updatedAt?: string | null;
  [field: string]: unknown;
}

export interface WebhookPage {
  items: Webhook[];
  /** The API says more exist (the API offers no way to ask for them). */
  hasMore: boolean;
}

export interface CreateWebhook {
  url: string;
  events: WebhookEventName[];
  /** Your own signing token (8..256 characters); the API makes one when omitted. */
  token?: string;
}

export interface UpdateWebhook {
  events: WebhookEventName[];
}

/** A contact as webhook events carry it. */
export interface Contact {
  id: string;
  email: string;
  properties: { firstName?: string | null; lastName?: string | null; email?: string | null; [name: string]: unknown };
  createdAt: string;
  workspaceId?: string;
  [field: string]: unknown;
}

interface EventBase {
  /** The envelope's time (`createdAt`, or the `timestamp` some deliveries carry), ISO 8601. */
  createdAt: string | undefined;
  /** Which envelope the delivery used: the documented one, or the one observed from the service. */
  shape: 'spec' | 'observed';
}

export interface ContactEvent extends EventBase {
  known: true;
  event: 'CONTACT_CREATED' | 'CONTACT_UPDATED' | 'CONTACT_UNSUBSCRIBED' | 'CONTACT_RESUBSCRIBED' | 'CONTACT_DELETED';
  data: { contact: Contact; [field: string]: unknown };
}

export interface TeamMemberJoinedEvent extends EventBase {
  known: true;
  event: 'WORKSPACE_TEAM_MEMBER_JOINED';
  data: { workspace: { id: string; name: string }; user: { id: string; email: string; name: string }; [field: string]: unknown };
}

/** An event this version does not know, or a known one whose data has another shape: verified all the same. */
export interface OtherEvent extends EventBase {
  known: false;
  event: string;
  data: Record<string, unknown>;
}

/** A verified delivery. Narrow with `known` and then `event`. */
export type WebhookEvent = ContactEvent | TeamMemberJoinedEvent | OtherEvent;

/** A received request, as any framework has it: the raw body bytes (never a re-serialised object) and the headers. */
export interface WebhookRequest {
  body: string | Uint8Array;
  headers: Headers | Record<string, string | string[] | undefined>;
}

export interface WebhookHandlerOptions {
  /** The webhook's signing token. */
  token: string;
  /** Also refuse a delivery whose envelope time is older than this (ms): a captured delivery sent again. */
  maxAgeMs?: number;
  /** The clock for maxAgeMs (tests). */
  now?: () => Date;
}

import type { ZodType } from 'zod';
import type { describeIssues as DescribeIssues } from '../schema/index.js';
import type { Transport } from '../transport/index.js';
import type * as T from '../types.js';
import { checkCallOptions, connectionFrom, refuseUnknown, DEFAULT_TIMEOUT_MS, openTransport, type Connection, type MailroomOptions } from './connection.js';
import { ValidationError } from './public-errors.js';
import { clientSecrets, scoped } from './secret-scope.js';

export type { MailroomOptions } from './connection.js';

/**
 * The typed client of the SMASHSEND API (docs/library.md). It loads the HTTP stack on its first
 * request; `close()` ends its keep-alive connections.
 */
export class Mailroom {
  readonly emails: Emails;
  readonly apiKeys: ApiKeys;
  readonly webhooks: Webhooks;
  readonly #connection: Connection;
  readonly #close: () => Promise<void>;

  /**
   * `new Mailroom()`, `new Mailroom({ apiKey, ... })`, or the key first as the official SDK takes it:
   * `new Mailroom('sk_live_…')`, `new Mailroom('sk_live_…', { baseUrl })`.
   */
  constructor(apiKeyOrOptions?: string | MailroomOptions, options?: Omit<MailroomOptions, 'apiKey'>) {
    const made = connectionFrom(optionsOf(apiKeyOrOptions, options));
    this.#connection = made.connection;
    this.#close = made.close;
    // Its own secrets (src/library/secret-scope.ts): what its calls hold and mask is this client's.
    const secrets = clientSecrets(made.connection.apiKey);
    this.emails = scoped(new Emails(this.#connection), secrets);
    this.apiKeys = scoped(new ApiKeys(this.#connection), secrets);
    this.webhooks = scoped(new Webhooks(this.#connection), secrets);
  }

  /** The API host this client sends to. */
  get baseUrl(): string {
    return this.#connection.baseUrl;
  }

  /** Closes the keep-alive connections (and any a timed-out request left open). */
  close(): Promise<void> {
    return this.#close();
  }
}

function optionsOf(first: unknown, second: unknown): MailroomOptions {
  const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);
  if (typeof first === 'string') {
    if (second !== undefined && (typeof second !== 'object' || second === null)) throw new ValidationError(`new Mailroom(): the options after the key must be an object, got ${describe(second)}`);
    if (second !== undefined && Object.hasOwn(second, 'apiKey')) throw new ValidationError('new Mailroom(): the API key is given twice (as the first argument and as apiKey): give it once');
    return { ...(second as MailroomOptions | undefined), apiKey: first };
  }
  if (first === undefined) return {};
  if (typeof first !== 'object' || first === null) throw new ValidationError(`new Mailroom(): give the API key (a string) or an options object, got ${describe(first)}`);
  if (second !== undefined) throw new ValidationError('new Mailroom(): give one options object (with apiKey), or the key and then the options');
  return first as MailroomOptions;
}

/** @internal The CLI's way in: a client over a transport the command's context owns (and closes). */
export function clientOver(transport: Transport, settings: { baseUrl: string; apiKey: string; workspaceId: string | undefined; maxRetries: number; env: Connection['env'] }): Mailroom {
  const client = Object.create(Mailroom.prototype) as Mailroom;
  const connection: Connection = {
    ...settings,
    transport: () => Promise.resolve(transport),
    transportWith: (apiKey) => openTransport({ ...connection, apiKey }, DEFAULT_TIMEOUT_MS).then((t) => t.transport),
  };
  return Object.assign(client, { emails: new Emails(connection), apiKeys: new ApiKeys(connection), webhooks: new Webhooks(connection) });
}

const BATCH_OPTIONS = ['journal', 'report', 'failed', 'concurrency', 'size', 'format', 'defaults', 'dryRun', 'newRun', 'allowOtherHost', 'allowOtherKey', 'signal', 'onProgress', 'timeoutMs', 'maxRetries'];
const BATCH_DEFAULTS = ['from', 'subject', 'template', 'html', 'groupBy', 'sendAt'];

const callOptions = (opts: T.RequestOptions | undefined, label: string): T.RequestOptions => checkCallOptions(opts, label) ?? {};

/**
 * A request body checked against the wire schema the CLI and the sandbox use, before anything is
 * sent; the body itself is sent as given (the schema would trim a name).
 */
function checkBody(schema: ZodType, body: unknown, label: string, describe: typeof DescribeIssues): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError(`${label}: the body must be an object`);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ValidationError(`${label}: ${describe(parsed.error.issues)}`);
}

/** The bounds `mailroom keys list` puts on the same query (--limit 1-100, --sort, --start-at). */
function checkListQuery(query: T.ListKeysQuery): T.ListKeysQuery {
  if (typeof query !== 'object' || query === null) throw new ValidationError('apiKeys.list: the query must be an object ({ limit, sort, startAt })');
  const { limit, sort, startAt } = query;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100)) throw new ValidationError(`apiKeys.list: limit must be an integer from 1 to 100, got ${String(limit)}`);
  if (sort !== undefined && sort !== 'createdAt.asc' && sort !== 'createdAt.desc') throw new ValidationError(`apiKeys.list: sort must be createdAt.asc or createdAt.desc, got ${String(sort)}`);
  if (startAt !== undefined && (typeof startAt !== 'string' || startAt === '')) throw new ValidationError('apiKeys.list: startAt must be the startAt of the page before (a string)');
  return query;
}

/** One key on two emails of a request: the API would answer the second with the first and send nothing for it. */
function refuseReusedKeys(requests: ReadonlyArray<{ idempotencyKey?: string | undefined }>): void {
  const seen = new Map<string, { index: number; json: string }>();
  for (const [index, request] of requests.entries()) {
    const key = request.idempotencyKey!;
    const json = JSON.stringify(request);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, { index, json });
    else if (first.json !== json) {
      throw new ValidationError(`emails.sendBatch: email ${index}: idempotencyKey "${key}" is also email ${first.index}'s, with other content: the API would answer with that email and send nothing`);
    }
  }
}

/** POST /v1/emails and /v1/emails/batch, and batches of any size with a journal (docs/library.md). */
export class Emails {
  readonly #c: Connection;
  constructor(connection: Connection) {
    this.#c = connection;
  }

  /**
   * Sends one email under an idempotency key (yours, or a new UUID): retries after a lost answer
   * reuse it, so the email is sent once. React elements and component files are rendered locally.
   */
  async send(email: T.EmailInput, opts?: T.RequestOptions): Promise<T.SendResult> {
    const call = callOptions(opts, 'emails.send');
    const [{ prepareEmail }, { sendEmail, checkSameEmail }] = await Promise.all([import('./prepare.js'), import('../api/emails.js')]);
    const request = await prepareEmail(email, 'emails.send');
    const { email: result, requestId } = await sendEmail(await this.#c.transport(), request, call);
    checkSameEmail(request, result, 'send this email with another idempotencyKey (or none: each send gets its own)');
    return { email: result, idempotencyKey: request.idempotencyKey!, requestId };
  }

  /**
   * Sends 1 to 50 emails in one request, each under its own idempotency key. Every email ends in
   * `successful` or in `failed` (each failure names its `index`), or the call rejects before sending.
   */
  async sendBatch(emails: readonly T.EmailInput[], opts?: T.RequestOptions): Promise<T.SendBatchResult> {
    if (!Array.isArray(emails) || emails.length < 1 || emails.length > 50) {
      throw new ValidationError(`emails.sendBatch: give 1 to 50 emails, got ${Array.isArray(emails) ? emails.length : typeof emails}; emails.batch() sends any number`);
    }
    const call = callOptions(opts, 'emails.sendBatch');
    const [{ prepareEmail }, { sendBatch }, { settleBatch }] = await Promise.all([import('./prepare.js'), import('../api/emails.js'), import('./settle-batch.js')]);
    const requests = [];
    for (const [i, email] of emails.entries()) requests.push(await prepareEmail(email, `emails.sendBatch: email ${i}`));
    refuseReusedKeys(requests);
    const result = await sendBatch(await this.#c.transport(), requests, call);
    return { ...settleBatch(requests, result), idempotencyKeys: requests.map((r) => r.idempotencyKey!), requestId: result.requestId };
  }

  /**
   * Sends any number of emails the way `mailroom batch` does, with the same engine: in requests of
   * `size`, `concurrency` at a time, paced by the API's 429s, each entry exactly once under a key
   * fixed by the journal, so an interrupted run resumes where it stopped (same `journal`).
   * Resolves with the summary even when entries failed; rejects with BatchError when the run stopped early.
   */
  async batch(source: T.BatchSource, opts: T.BatchOptions = {}): Promise<T.BatchSummary> {
    checkCallOptions(opts, 'emails.batch', BATCH_OPTIONS);
    if (typeof opts.defaults === 'object' && opts.defaults !== null) refuseUnknown(opts.defaults, BATCH_DEFAULTS, 'emails.batch: defaults');
    const { runLibraryBatch } = await import('./batch.js');
    return runLibraryBatch(this.#c, source, opts);
  }
}

/** The workspace's API keys (GET/POST/DELETE /v1/workspaces/{wrk}/api-keys) and the key check. */
export class ApiKeys {
  readonly #c: Connection;
  constructor(connection: Connection) {
    this.#c = connection;
  }

  #workspace(): string {
    const id = this.#c.workspaceId;
    if (!id) throw new ValidationError('apiKeys: no workspace: pass { workspaceId } to new Mailroom(), or set MAILROOM_WORKSPACE');
    return id;
  }

  /** `await` it for one page, or `for await` it for every key across the pages. */
  list(query: T.ListKeysQuery = {}, opts?: T.RequestOptions): T.KeyList {
    const pages = async function* (this: ApiKeys): AsyncGenerator<T.KeyPage> {
      const [q, call] = [checkListQuery(query), callOptions(opts, 'apiKeys.list')];
      const { keyPages } = await import('../api/apiKeys.js');
      yield* keyPages(await this.#c.transport(), this.#workspace(), q, call);
    }.bind(this);
    const first = async (): Promise<T.KeyPage> => {
      const [q, call] = [checkListQuery(query), callOptions(opts, 'apiKeys.list')];
      const { listKeys } = await import('../api/apiKeys.js');
      return listKeys(await this.#c.transport(), this.#workspace(), q, call);
    };
    return {
      then: (onfulfilled, onrejected) => first().then(onfulfilled, onrejected),
      pages,
      async *[Symbol.asyncIterator]() {
        for await (const page of pages()) yield* page.items;
      },
    };
  }

  /** Creates a key; its `secretKey` is in this answer only. */
  async create(body: { displayName: string; role: T.KeyRole }, opts?: T.RequestOptions): Promise<T.ApiKey> {
    const call = callOptions(opts, 'apiKeys.create');
    const [{ createKey }, schema] = await Promise.all([import('../api/apiKeys.js'), import('../schema/index.js')]);
    checkBody(schema.createKeyRequestSchema, body, 'apiKeys.create', schema.describeIssues);
    return createKey(await this.#c.transport(), this.#workspace(), body, call);
  }

  /** Renames a key or changes its role; the secret never changes. */
  async update(id: string, body: { displayName?: string; role?: T.KeyRole }, opts?: T.RequestOptions): Promise<T.ApiKey> {
    const call = callOptions(opts, 'apiKeys.update');
    const [{ updateKey }, schema] = await Promise.all([import('../api/apiKeys.js'), import('../schema/index.js')]);
    checkBody(schema.updateKeyRequestSchema, body, 'apiKeys.update', schema.describeIssues);
    return updateKey(await this.#c.transport(), this.#workspace(), id, body, call);
  }

  /** Deletes a key: it stops working at once. `'gone'` when an answer was lost and the retry found it already deleted. */
  async delete(id: string, opts?: T.RequestOptions): Promise<T.ApiKey | 'gone'> {
    const call = callOptions(opts, 'apiKeys.delete');
    const { deleteKey } = await import('../api/apiKeys.js');
    return deleteKey(await this.#c.transport(), this.#workspace(), id, call);
  }

  /** Checks the client's own key (GET /v1/api-keys/check): resolves when it is valid, rejects with ApiError (401) when not. */
  async check(opts?: T.RequestOptions): Promise<T.KeyCheckResult> {
    const call = callOptions(opts, 'apiKeys.check');
    const { checkKey } = await import('../api/apiKeys.js');
    return checkKey(await this.#c.transport(), call);
  }

  /**
   * Replaces a key safely: creates one with the same name and role, checks it with its own secret,
   * calls `save`, and only then deletes the old key. A failure leaves the old key working and
   * removes a half-made new one; RotateIncompleteError carries the new key if only the delete failed.
   */
  async rotate(id: string, opts: T.RotateOptions = {}): Promise<{ oldKey: T.ApiKey; newKey: T.ApiKey }> {
    checkCallOptions(opts, 'apiKeys.rotate', ['signal', 'save']);
    if (opts.save !== undefined && typeof opts.save !== 'function') throw new ValidationError('apiKeys.rotate: save must be a function that stores the new secret');
    const [{ rotateKey }, { checkKey }] = await Promise.all([import('../api/rotate.js'), import('../api/apiKeys.js')]);
    const connection = this.#c;
    return rotateKey(
      {
        transport: await connection.transport(),
        workspaceId: this.#workspace(),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.save ? { save: opts.save } : {}),
        async checkWith(secret) {
          const probe = await connection.transportWith(secret);
          try {
            return await checkKey(probe);
          } finally {
            await probe.close();
          }
        },
      },
      id,
    );
  }
}

/** Webhook subscriptions (GET/POST/DELETE /v1/webhooks). Receiving deliveries: createWebhookHandler. */
export class Webhooks {
  readonly #c: Connection;
  constructor(connection: Connection) {
    this.#c = connection;
  }

  async list(opts?: T.RequestOptions): Promise<T.WebhookPage> {
    const call = callOptions(opts, 'webhooks.list');
    const { listWebhookPage } = await import('../api/webhooks.js');
    return listWebhookPage(await this.#c.transport(), call);
  }

  async get(id: string, opts?: T.RequestOptions): Promise<T.Webhook> {
    const call = callOptions(opts, 'webhooks.get');
    const { getWebhook } = await import('../api/webhooks.js');
    return getWebhook(await this.#c.transport(), id, call);
  }

  /** Subscribes a URL; the answer holds the signing token in full, this once. */
  async create(body: T.CreateWebhook, opts?: T.RequestOptions): Promise<T.Webhook> {
    const call = callOptions(opts, 'webhooks.create');
    const [{ createWebhook }, schema] = await Promise.all([import('../api/webhooks.js'), import('../schema/index.js')]);
    checkBody(schema.createWebhookRequestSchema, body, 'webhooks.create', schema.describeIssues);
    return createWebhook(await this.#c.transport(), body, call);
  }

  async update(id: string, body: T.UpdateWebhook, opts?: T.RequestOptions): Promise<T.Webhook> {
    const call = callOptions(opts, 'webhooks.update');
    const [{ updateWebhook }, schema] = await Promise.all([import('../api/webhooks.js'), import('../schema/index.js')]);
    checkBody(schema.updateWebhookRequestSchema, body, 'webhooks.update', schema.describeIssues);
    return updateWebhook(await this.#c.transport(), id, body, call);
  }

  /** `'gone'` when an answer was lost and the retry found it already deleted. */
  async delete(id: string, opts?: T.RequestOptions): Promise<T.Webhook | 'gone'> {
    const call = callOptions(opts, 'webhooks.delete');
    const { deleteWebhook } = await import('../api/webhooks.js');
    return deleteWebhook(await this.#c.transport(), id, call);
  }
}

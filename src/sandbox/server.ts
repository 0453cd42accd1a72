import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { DOCS_URL, EVENT_NAMES, isEventName, isEmailAddress } from '../schema/index.js';
import { BATCH_BODY_LIMIT, BODY_LIMIT } from '../schema/limits.js';
import { authenticate, authorize, bearerSecret, requireWorkspace, unknownKey, type AuthScope } from './auth.js';
import type { ResolvedConfig } from './config.js';
import type { Deliverer } from './deliveries.js';
import { DeliveryWaits, parseDeliveryWait } from './delivery-waits.js';
import { batchEntriesError, type EmailService } from './emails.js';
import { errorBody, HttpError } from './http-errors.js';
import { triggerEvent } from './events.js';
import { installFaults } from './faults.js';
import { installLocalOnly } from './local-only.js';
import { filterEmails, isFiltered, parseFilter, totalMatching } from './email-query.js';
import { notFoundPage, registerInbox, wantsPage } from './inbox-routes.js';
import { checkKey, createKey, deleteKey, listKeys, updateKey } from './keys.js';
import { RateLimiter } from './limits.js';
import { LiveFeed } from './live.js';
import { randomToken, type InboxEmail, type SandboxState, type StoredKey } from './state.js';
import { withText } from './text.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from './webhooks.js';
import { EmailWaiters, parseWait } from './waiters.js';
import { Workspaces, type WorkspaceParts } from './workspaces.js';

export { BATCH_BODY_LIMIT, BODY_LIMIT };

export interface ServerDeps {
  state: SandboxState;
  config: ResolvedConfig;
  emails: EmailService;
  deliverer: Deliverer;
  /** The inbox's live stream; absent, the stream only ever reports the state it opened with. */
  live?: LiveFeed;
  /** Resolves once every change so far is saved (`--data`); awaited before any 2xx answer to a write. */
  durable: () => Promise<void>;
  /** Called by `POST /_sandbox/reset`, after the state is emptied. */
  reset: () => void;
  log: (line: string) => void;
  /** The long polls of `GET /_sandbox/emails/wait`, told of each email caught; absent, a wait sees only what was caught before it. */
  waiters?: EmailWaiters;
  /** Every workspace, the first being `state`'s; absent, that one only. */
  workspaces?: Workspaces;
}

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: StoredKey | null;
    /** The workspace of `apiKey`. */
    workspace: WorkspaceParts | null;
    /** The bytes of a JSON body, as received. */
    rawBody: Buffer | undefined;
  }
  interface FastifyContextConfig {
    scope?: AuthScope;
    inspection?: boolean;
  }
}

type Params = Record<string, string>;

function send(reply: FastifyReply, body: { statusCode: number }): FastifyReply {
  return reply.code(body.statusCode).send(body);
}

export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const { state, config, emails, deliverer } = deps;
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    genReqId: () => `req_${randomToken(16)}`,
    return503OnClosing: true,
  });
  app.decorateRequest('apiKey', null);
  app.decorateRequest('workspace', null);
  app.decorateRequest('rawBody', undefined);
  const waiters = deps.waiters ?? new EmailWaiters();
  const workspaces = deps.workspaces ?? new Workspaces({ state, emails, deliverer, waiters, deliveryWaits: new DeliveryWaits(state, deliverer), reset: deps.reset, close: async () => undefined });

  // JSON only, and an empty body reads as no body (some clients send the header on DELETE).
  // The body's bytes are kept beside it: `--data` journals an accepted request as it came (journal-lines.ts).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    const text = (bytes as Buffer).toString('utf8');
    if (text === '') return done(null, undefined);
    try {
      const body: unknown = JSON.parse(text);
      request.rawBody = bytes as Buffer;
      done(null, body);
    } catch (err) {
      done(new HttpError(400, `Malformed JSON body: ${(err as Error).message}`), undefined);
    }
  });

  // First, so that every answer carries it, injected faults included.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // A request's faults come from its key's workspace's sequence; without a known key, the first's.
  const faults = installFaults(app, config.faults, (request) => {
    const secret = bearerSecret(request.headers.authorization);
    return (secret === undefined ? undefined : workspaces.keyOf(secret))?.parts.state.workspace.id ?? state.workspace.id;
  });

  const limiter = config.rateLimit === undefined ? undefined : new RateLimiter(config.rateLimit);
  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (scope === undefined) return;
    // Before the body is read: an unauthenticated caller learns nothing about its payload.
    const { key, parts } = authenticate((secret) => workspaces.keyOf(secret), request.headers.authorization, scope);
    request.apiKey = key;
    request.workspace = parts;
    if (limiter) reply.headers(limiter.take(key.id));
    authorize(key, scope, request.method);
  });

  // The body is read between the key's check and the work: a workspace deleted meanwhile takes its
  // keys with it, and the request is refused as any unknown key is, rather than landing in it.
  app.addHook('preHandler', async (request) => {
    const scope = request.routeOptions.config.scope;
    if (scope !== undefined && request.workspace && !workspaces.holds(request.workspace)) throw unknownKey(scope);
  });

  // Before any route is registered: it marks every route outside /v1 as an inspection route.
  installLocalOnly(app);

  // What the sandbox acknowledges is on disk before the answer leaves. Every write waits for all
  // changes so far, not only its own: an idempotent repeat acknowledges its first result too.
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 300) return payload;
    try {
      await deps.durable();
    } catch (err) {
      deps.log(`sandbox: cannot save the data file: ${(err as Error).message}`);
      throw new HttpError(500, 'The sandbox could not save this change to its data file');
    }
    return payload;
  });

  app.setErrorHandler((err: FastifyError | HttpError, request, reply) => {
    if (err instanceof HttpError) {
      const body = isEmailPath(request) && err.statusCode === 400 && !('docsUrl' in err.body) ? { ...err.body, docsUrl: DOCS_URL } : err.body;
      return reply.code(err.statusCode).headers(err.headers).send(body);
    }
    return send(reply, frameworkError(err, request, deps.log));
  });
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (wantsPage(request)) return notFoundPage(reply, `Nothing at ${path} in this sandbox.`);
    return send(reply, errorBody(404, `No route ${request.method} ${path}`));
  });

  const api = { config: { scope: 'api_user' as AuthScope } };
  const keysScope = { config: { scope: 'keys' as AuthScope } };

  const own = (request: FastifyRequest): WorkspaceParts => request.workspace!;

  app.post('/v1/emails', api, async (request, reply) => {
    const outcome = own(request).emails.send(request.body, new Date(), request.id, request.rawBody);
    return outcome.ok ? { email: outcome.result } : send(reply, outcome.error);
  });

  app.post('/v1/emails/batch', { ...api, bodyLimit: BATCH_BODY_LIMIT }, async (request, reply) => {
    const invalid = batchEntriesError(request.body);
    if (invalid) return send(reply, invalid);
    const entries = (request.body as { emails: unknown[] }).emails;
    const now = new Date();
    const { emails } = own(request);
    if (emails.monthlyLimitReached(now) && !emails.repeatsAcceptedKey(entries)) return send(reply, emails.monthlyLimitError());
    return { emails: emails.sendBatch(entries, now, request.id, request.rawBody) };
  });

  app.get('/v1/api-keys/check', { config: { scope: 'check' } }, async (request) => checkKey(request.apiKey!));

  const base = '/v1/workspaces/:workspaceId/api-keys';
  /** The key's own workspace's store, once the path's workspace is checked to be it. */
  const inWorkspace = (request: FastifyRequest): SandboxState => {
    const { state: own } = request.workspace!;
    requireWorkspace(own, (request.params as Params).workspaceId!);
    return own;
  };
  app.get(base, keysScope, async (request) => listKeys(inWorkspace(request), request.query as Record<string, string>));
  app.post(base, keysScope, async (request) => createKey(inWorkspace(request), request.body));
  app.post(`${base}/:apiKeyId`, keysScope, async (request) => updateKey(inWorkspace(request), (request.params as Params).apiKeyId!, request.body));
  app.delete(`${base}/:apiKeyId`, keysScope, async (request) => deleteKey(inWorkspace(request), (request.params as Params).apiKeyId!));

  app.get('/v1/webhooks', api, async (request) => listWebhooks(own(request).state));
  app.get('/v1/webhooks/:webhookId', api, async (request) => getWebhook(own(request).state, (request.params as Params).webhookId!));
  app.post('/v1/webhooks', api, async (request) => createWebhook(own(request).state, request.body));
  app.post('/v1/webhooks/:webhookId', api, async (request) => updateWebhook(own(request).state, (request.params as Params).webhookId!, request.body));
  app.delete('/v1/webhooks/:webhookId', api, async (request) => deleteWebhook(own(request).state, (request.params as Params).webhookId!));

  // Inspection and control: no auth, no faults, no rate limit; guarded by local-only.ts.
  const inspect = { config: { inspection: true } };
  // `?limit=n` keeps the newest n (0: just the total), so a client can count a large inbox cheaply;
  // `q`, `to`, `status` and `kind` filter as the inbox's search does, and `total` counts the matches.
  // `?workspace=wrk_…` picks a workspace (default: the first); `/_sandbox/workspaces` makes one.
  /** The answer of a long poll whose workspace was deleted under it, once the deletion is saved (`--data`), as the DELETE's own answer waits. */
  const deletedWhileWaiting = async (waited: SandboxState): Promise<HttpError> => {
    await deps.durable().catch(() => undefined);
    return new HttpError(404, `Workspace ${waited.workspace.id} was deleted while this wait was open`);
  };
  const picked = (request: FastifyRequest): WorkspaceParts => workspaces.pick((request.query as Record<string, string | undefined>).workspace);
  app.get('/_sandbox/emails', inspect, async (request) => {
    const { state } = picked(request);
    const query = request.query as Record<string, string | undefined>;
    const filter = parseFilter(query);
    const matching = isFiltered(filter) ? filterEmails(state.emails, filter) : state.emails;
    const total = totalMatching(state, filter, matching.length);
    const limit = query.limit;
    if (limit === undefined) return { items: shown(matching), total };
    if (!/^\d+$/.test(limit)) throw new HttpError(400, 'Invalid request: limit must be a whole number');
    const n = Number(limit);
    return { items: n === 0 ? [] : shown(matching.slice(-n)), total };
  });
  // A long poll: answers once `count` emails matching `to` and `subject` are caught (those caught
  // before the call count), or at `timeoutMs` with `timedOut: true` and what matched so far.
  app.get('/_sandbox/emails/wait', inspect, async (request, reply) => {
    const { state, waiters } = picked(request);
    const wanted = parseWait(request.query as Record<string, string | undefined>);
    // The emails caught before the wait count, but only the newest `retain` are kept: a wait for
    // more could be answered only by its timeout. Refused at once, naming the limit.
    if (wanted.count > state.retain) {
      throw new HttpError(400, `Invalid request: count ${wanted.count} is more emails than this sandbox keeps (retain ${state.retain}): a wait for more could never see them all`, { retain: state.retain });
    }
    // A caller that hangs up stops its wait: nothing is left listening.
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort());
    const outcome = await waiters.wait(state.emails, wanted, gone.signal);
    if (outcome.deleted) throw await deletedWhileWaiting(state);
    return { ...outcome, items: shown(outcome.items) };
  });
  app.get('/_sandbox/emails/:id', inspect, async (request) => {
    const id = (request.params as Params).id!;
    const email = workspaces.all().map((w) => w.state.emailsById.get(id)).find((e) => e !== undefined);
    if (!email) throw new HttpError(404, `Email ${id} not found`);
    withText(email);
    return { email };
  });
  // `mailroom lint`'s local checks on a caught email (`sandbox email --checks`, the inbox's Checks tab).
  app.get('/_sandbox/emails/:id/checks', inspect, async (request) => {
    const id = (request.params as Params).id!;
    const email = workspaces.all().map((w) => w.state.emailsById.get(id)).find((e) => e !== undefined);
    if (!email) throw new HttpError(404, `Email ${id} not found`);
    const failOn = (request.query as Record<string, string | undefined>).failOn ?? 'error';
    if (failOn !== 'error' && failOn !== 'warning' && failOn !== 'info') throw new HttpError(400, 'Invalid request: failOn must be one of error, warning, info');
    const { emailChecks } = await import('./email-checks.js');
    return emailChecks(email, failOn);
  });
  app.get('/_sandbox/deliveries', inspect, async (request) => {
    const { state } = picked(request);
    return { items: state.deliveries, total: state.deliveryTotal, dropped: state.deliveriesDropped };
  });
  // A long poll: answers once `count` attempts are recorded (those before the call count), or with
  // `idle=true` once none is queued, in flight or waiting for a retry; at `timeoutMs`, `timedOut: true`.
  app.get('/_sandbox/deliveries/wait', inspect, async (request, reply) => {
    const { state, deliveryWaits } = picked(request);
    const wanted = parseDeliveryWait(request.query as Record<string, string | undefined>);
    // Only the newest `retain` attempts are kept, and a wait counts the kept ones: more could only time out.
    if (!wanted.idle && wanted.count > state.retain) {
      throw new HttpError(400, `Invalid request: count ${wanted.count} is more delivery attempts than this sandbox keeps (retain ${state.retain}): a wait for more could never see them all`, { retain: state.retain });
    }
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort());
    const outcome = await deliveryWaits.wait(wanted, gone.signal);
    if (outcome.deleted) throw await deletedWhileWaiting(state);
    return { items: state.deliveries, total: state.deliveryTotal, dropped: state.deliveriesDropped, ...outcome };
  });
  app.post('/_sandbox/events', inspect, async (request) => {
    const { event, email, workspace } = parseEventRequest(request.body);
    const { state, deliverer } = workspaces.pick(workspace);
    const envelope = triggerEvent(state, event, email, new Date().toISOString());
    deliverer.publishSoon(envelope);
    return { event: envelope };
  });
  // `settle: true` (the library's reset()): the deliveries already on their way reach their
  // receivers first, so that none lands in a test's receiver after the next one began.
  app.post('/_sandbox/reset', inspect, async (request) => {
    const { workspace, settle } = resetRequest(request.body);
    const parts = workspaces.pick(workspace);
    if (settle) await parts.deliverer.settled();
    if (!workspaces.holds(parts)) throw new HttpError(404, `Workspace ${parts.state.workspace.id} was deleted before it could be reset`);
    // Only this workspace's: another test worker's rate-limit windows and fault sequence go on as they were.
    limiter?.forget(parts.state.keys.keys());
    parts.state.reset();
    parts.reset();
    faults.restart(parts.state.workspace.id);
    return { reset: true };
  });
  app.post('/_sandbox/workspaces', inspect, async (request) => {
    const name = nameOf(request.body);
    const { parts, key } = workspaces.create(name);
    return { workspaceId: parts.state.workspace.id, name: parts.state.workspace.name, apiKey: key.secretKey };
  });
  // A test's teardown deletes the workspace it made; the first one (the ready key's) stays.
  app.delete('/_sandbox/workspaces/:id', inspect, async (request) => {
    noFields(request.body);
    const id = (request.params as Params).id!;
    const keys = [...(workspaces.get(id)?.state.keys.keys() ?? [])];
    await workspaces.delete(id);
    limiter?.forget(keys);
    faults.restart(id);
    return { deleted: id };
  });
  app.get('/_sandbox/workspaces', inspect, async () => ({
    items: workspaces.all().map(({ state: s }) => ({ id: s.workspace.id, name: s.workspace.name, emails: s.emailTotal })),
  }));

  registerInbox(app, {
    state,
    deliverer,
    workspaces: () => workspaces.all().map((w) => w.state),
    delivererOf: (id) => workspaces.all().find((w) => w.state.deliveries.some((d) => d.id === id)),
    live: deps.live ?? new LiveFeed(() => ({ emails: state.emailTotal, scheduled: 0, deliveries: state.deliveryTotal })),
  });

  return app;
}

/** Emails as the inspection API answers them: each with its text (generated when first read). */
function shown(emails: InboxEmail[]): InboxEmail[] {
  for (const email of emails) withText(email);
  return emails;
}

function isEmailPath(request: FastifyRequest): boolean {
  return request.url.startsWith('/v1/emails');
}

/** The `workspace` (`{}` and no body: the first) and `settle` of a reset's body. */
function resetRequest(body: unknown): { workspace: string | undefined; settle: boolean } {
  if (body === undefined || body === null) return { workspace: undefined, settle: false };
  if (typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'Invalid request: the body must be a JSON object');
  const extra = Object.keys(body).filter((k) => k !== 'workspace' && k !== 'settle');
  if (extra.length > 0) throw new HttpError(400, `Invalid request: unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`);
  const { workspace, settle } = body as { workspace?: unknown; settle?: unknown };
  if (workspace !== undefined && typeof workspace !== 'string') throw new HttpError(400, 'Invalid request: workspace must be a workspace id (wrk_…)');
  if (settle !== undefined && typeof settle !== 'boolean') throw new HttpError(400, 'Invalid request: settle must be true or false');
  return { workspace, settle: settle === true };
}

/** A body that may be absent or `{}`, nothing more. */
function noFields(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'Invalid request: the body must be a JSON object');
  const extra = Object.keys(body);
  if (extra.length > 0) throw new HttpError(400, `Invalid request: unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`);
}

function nameOf(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'Invalid request: the body must be a JSON object');
  const extra = Object.keys(body).filter((k) => k !== 'name');
  if (extra.length > 0) throw new HttpError(400, `Invalid request: unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`);
  const { name } = body as { name?: unknown };
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || name.length > 200)) throw new HttpError(400, 'Invalid request: name must be a string of 1 to 200 characters');
  return name === undefined ? undefined : name.trim();
}

function parseEventRequest(body: unknown): { event: (typeof EVENT_NAMES)[number]; email: string | undefined; workspace: string | undefined } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'Invalid request: the body must be a JSON object { "event": "<EVENT_NAME>", "email"?: "<address>" }');
  }
  const extra = Object.keys(body).filter((k) => k !== 'event' && k !== 'email' && k !== 'workspace');
  if (extra.length > 0) throw new HttpError(400, `Invalid request: unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`);
  const { event, email, workspace } = body as { event?: unknown; email?: unknown; workspace?: unknown };
  if (workspace !== undefined && typeof workspace !== 'string') throw new HttpError(400, 'Invalid request: workspace must be a workspace id (wrk_…)');
  if (typeof event !== 'string' || !isEventName(event)) {
    throw new HttpError(400, `Invalid request: event must be one of ${EVENT_NAMES.join(', ')}`);
  }
  if (email !== undefined && (typeof email !== 'string' || !isEmailAddress(email))) {
    throw new HttpError(400, 'Invalid request: email must be an email address');
  }
  return { event, email, workspace };
}

/** Fastify's own errors (body parsing, limits) answered with the spec's error body. */
function frameworkError(err: FastifyError, request: FastifyRequest, log: (line: string) => void) {
  const emailPath = isEmailPath(request);
  const docs = emailPath ? { docsUrl: DOCS_URL } : {};
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = request.url.startsWith('/v1/emails/batch') ? BATCH_BODY_LIMIT : BODY_LIMIT;
      return errorBody(413, `Request body is larger than the sandbox's limit of ${limit} bytes`);
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errorBody(415, `Unsupported Content-Type ${JSON.stringify(request.headers['content-type'] ?? '')}: send application/json`);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errorBody(400, err.message, docs);
  }
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  if (status === 500) {
    log(`sandbox: internal error on ${request.method} ${request.url}: ${err.stack ?? err.message}`);
    return errorBody(500, 'Internal error in the sandbox');
  }
  return errorBody(status, err.message, status === 400 ? docs : {});
}


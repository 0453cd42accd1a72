import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deliverer } from './deliveries.js';
import { HttpError } from './http-errors.js';
import type { LiveFeed } from './live.js';
import type { SandboxState } from './state.js';

export interface InboxDeps {
  state: SandboxState;
  /** Every workspace's store, the first being `state`: the inbox shows one at a time (`?workspace=`). */
  workspaces?: () => SandboxState[];
  /** The deliverer of the workspace holding a delivery (resend); absent, `deliverer`. */
  delivererOf?: (deliveryId: string) => { state: SandboxState; deliverer: Deliverer } | undefined;
  deliverer: Deliverer;
  live: LiveFeed;
}

type Params = Record<string, string>;
type Query = Record<string, string | undefined>;

// The pages, styles and script load on the first visit only: a sandbox that nobody looks at (tests,
// CI, `--sandbox`) never pays for them.
const pages = () => import('./inbox.js');
const assets = () => import('./inbox-assets.js');

const PAGE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

async function html(reply: FastifyReply, body: string, status = 200): Promise<FastifyReply> {
  const { INBOX_CSP } = await pages();
  return reply.code(status).type('text/html; charset=utf-8').headers({ ...PAGE_HEADERS, 'content-security-policy': INBOX_CSP }).send(body);
}

/** True when the caller is a browser asking for a page (a 404 then answers a page, not JSON). */
export function wantsPage(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0]!;
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (path.startsWith('/v1/') || path === '/v1' || path.startsWith('/_sandbox/')) return false;
  return (request.headers.accept ?? '').includes('text/html');
}

export async function notFoundPage(reply: FastifyReply, message: string, state?: SandboxState): Promise<FastifyReply> {
  const { messagePage } = await pages();
  return html(reply, messagePage('Not found', message, state), 404);
}

/** The HTML inbox, its assets, its live stream and the inspection endpoints its buttons call. */
export function registerInbox(app: FastifyInstance, deps: InboxDeps): void {
  const { state, deliverer, live } = deps;
  // Every route here is guarded by local-only.ts (loopback, local Host name, and for the POSTs a JSON
  // content type and no foreign Origin), checked before the body is read.
  const inspect = { config: { inspection: true } };

  const choices = () => (deps.workspaces?.() ?? [state]).map((s) => ({ id: s.workspace.id, name: s.workspace.name }));
  /** The workspace of `?workspace=` (absent: the first); undefined when there is none such. */
  const shownOf = (request: FastifyRequest): SandboxState | undefined => {
    const wanted = (request.query as Query).workspace;
    return wanted ? (deps.workspaces?.() ?? [state]).find((s) => s.workspace.id === wanted) : state;
  };

  const list = async (request: FastifyRequest, reply: FastifyReply) => {
    const { inboxPage, messagePage } = await pages();
    const { parseFilter } = await import('./email-query.js');
    const query = request.query as Query;
    try {
      const shown = shownOf(request);
      if (!shown) throw new HttpError(404, `No workspace ${query.workspace} in this sandbox.`);
      return await html(reply, inboxPage(shown, parseFilter(query), query.page, Date.now(), choices()));
    } catch (err) {
      if (err instanceof HttpError) return html(reply, messagePage(err.statusCode === 404 ? 'Not found' : 'Bad search', err.message, state), err.statusCode);
      throw err;
    }
  };
  app.get('/', inspect, list);
  app.get('/inbox', inspect, list);

  /** The store holding an email: ids are unique across workspaces. */
  const holding = (id: string): SandboxState | undefined => (deps.workspaces?.() ?? [state]).find((s) => s.emailsById.has(id));

  app.get('/inbox/:id', inspect, async (request, reply) => {
    const id = (request.params as Params).id!;
    const email = holding(id)?.emailsById.get(id);
    if (!email) return notFoundPage(reply, `No email ${id} in this sandbox: it was deleted or cleared, or the sandbox restarted without --data.`, state);
    const { emailPage, parseView, scopeOf } = await pages();
    const owner = holding(id)!;
    return html(reply, emailPage(owner, email, parseView(request.query as Query), Date.now(), scopeOf(owner, choices())));
  });

  // The email's own document, for the frame: its own policy (no scripts, remote content on request).
  app.get('/inbox/:id/body', inspect, async (request, reply) => {
    const id = (request.params as Params).id!;
    const email = holding(id)?.emailsById.get(id);
    if (!email) return notFoundPage(reply, `No email ${id} in this sandbox.`);
    const { prepareEmailHtml, emailFrameCsp } = await import('./email-html.js');
    const remote = (request.query as Query).images === '1';
    return reply
      .type('text/html; charset=utf-8')
      .headers({ ...PAGE_HEADERS, 'content-security-policy': emailFrameCsp(remote) })
      .send(prepareEmailHtml(email.html));
  });

  app.get('/deliveries', inspect, async (request, reply) => {
    const { deliveriesPage, scopeOf } = await pages();
    const shown = shownOf(request);
    if (!shown) return notFoundPage(reply, `No workspace ${(request.query as Query).workspace} in this sandbox.`, state);
    return html(reply, deliveriesPage(shown, (request.query as Query).page, Date.now(), scopeOf(shown, choices())));
  });

  const asset = (type: string, pick: (a: Awaited<ReturnType<typeof assets>>) => string) => async (request: FastifyRequest, reply: FastifyReply) => {
    const a = await assets();
    // The pages name the assets with their version: a versioned URL never changes.
    const cache = (request.query as Query).v === a.ASSET_VERSION ? 'public, max-age=31536000, immutable' : 'no-cache';
    return reply.type(type).headers({ 'x-content-type-options': 'nosniff', 'cache-control': cache }).send(pick(a));
  };
  app.get('/_inbox/inbox.css', inspect, asset('text/css; charset=utf-8', (a) => a.INBOX_CSS));
  app.get('/_inbox/inbox.js', inspect, asset('text/javascript; charset=utf-8', (a) => a.INBOX_JS));

  // `?workspace=`: the stream of that workspace's page (absent: the first's).
  app.get('/_sandbox/stream', inspect, async (request, reply) => {
    const shown = shownOf(request);
    if (!shown) throw new HttpError(404, `Workspace ${(request.query as Query).workspace} not found in this sandbox`);
    reply.hijack();
    live.attach(reply.raw, { 'x-request-id': request.id }, shown === state ? undefined : shown.workspace.id);
  });

  app.post('/_sandbox/emails/:id/delete', inspect, async (request) => {
    const id = (request.params as Params).id!;
    if (!holding(id)?.deleteEmail(id)) throw new HttpError(404, `Email ${id} not found`);
    return { deleted: id };
  });

  // `{ workspace }`: that workspace's emails only (the inbox page of a workspace sends it).
  app.post('/_sandbox/emails/clear', inspect, async (request) => {
    const wanted = (request.body as { workspace?: unknown } | undefined)?.workspace;
    if (wanted !== undefined && typeof wanted !== 'string') throw new HttpError(400, 'Invalid request: workspace must be a workspace id (wrk_…)');
    const target = wanted === undefined ? state : (deps.workspaces?.() ?? [state]).find((s) => s.workspace.id === wanted);
    if (!target) throw new HttpError(404, `Workspace ${wanted} not found in this sandbox`);
    return { deleted: target.clearEmails() };
  });

  app.post('/_sandbox/deliveries/:id/resend', inspect, async (request) => {
    const id = (request.params as Params).id!;
    const owner = deps.delivererOf ? deps.delivererOf(id) : { state, deliverer };
    const original = owner?.state.deliveries.find((d) => d.id === id);
    if (!owner || !original) throw new HttpError(404, `Delivery ${id} not found`);
    if (!owner.state.webhooks.has(original.webhookId)) throw new HttpError(409, `Webhook ${original.webhookId} was deleted: delivery ${id} cannot be resent`);
    if (!owner.deliverer.resend(id)) throw new HttpError(409, `Delivery ${id} was recorded without its body and cannot be resent`);
    return { resent: id, webhookId: original.webhookId, event: original.event };
  });
}

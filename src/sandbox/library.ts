/**
 * `import { startSandbox } from 'mailroom-cli/sandbox'`: the sandbox of `mailroom sandbox`, started
 * in-process for a user's own test suite (docs/sandbox-in-your-tests.md). The same server, config
 * and checks as the command; this module only sets the defaults a test wants and gives typed access
 * to what the inspection endpoints show.
 */
import type { EventName } from '../schema/events.js';
import type { Envelope } from '../webhook/samples.js';
import type { DeliveryRecord } from './state.js';
import { count as counted, figure } from '../plural.js';
import { caught } from './caught.js';
import { MAX_WAIT_MS } from './waiters.js';
import type Agent from 'undici/lib/dispatcher/agent.js';
import type RequestApi from 'undici/lib/api/api-request.js';
import type { CaughtEmail, SandboxConnection, SandboxDelivery, SandboxEmail, SandboxWorkspace, SandboxEnvelope, SandboxEventName, Sandbox, StartSandboxOptions, WaitForEmailOptions } from './public-types.js';

export type * from './public-types.js';

// The public event names are the schema's, both ways (a compile error here means they drifted).
const sameEvents: [EventName, SandboxEventName] extends [SandboxEventName, EventName] ? true : never = true;
void sameEvents;

/** The header a delivery's signature travels in (lower case, as Node reports request headers). */
export const SIGNATURE_HEADER = 'x-smashsend-signature' as const;

const CLOSED = 'mailroom sandbox: this sandbox is closed (close() was called); start another with startSandbox()';
const OPTIONS = ['port', 'host', 'apiKey', 'config', 'configFile', 'log'];
const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : v === null ? 'null' : typeof v === 'object' || typeof v === 'function' ? typeof v : String(v));

/**
 * An option ignored would start another sandbox than the test asked for (a misspelt apiKey: another
 * key; a misspelt configFile: no config), and a mistyped one would fail later in Node's words.
 */
function optionProblem(options: unknown): string | undefined {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return `the options must be an object, got ${shown(options)}`;
  const o = options as Record<string, unknown>;
  const unknown = Object.keys(o).find((name) => !OPTIONS.includes(name));
  if (unknown !== undefined) return `unknown option ${unknown} (known: ${OPTIONS.join(', ')})`;
  if (o.port !== undefined && !(Number.isInteger(o.port) && (o.port as number) >= 0 && (o.port as number) <= 65535)) return `port must be a whole number from 0 to 65535, got ${shown(o.port)}`;
  if (o.host !== undefined && (typeof o.host !== 'string' || o.host.trim() === '')) return `host must be a host name or address, got ${shown(o.host)}`;
  // Never the value: it may be a secret.
  if (o.apiKey !== undefined && typeof o.apiKey !== 'string') return `apiKey must be a string, got ${o.apiKey === null ? 'null' : typeof o.apiKey}`;
  if (o.config !== undefined && (typeof o.config !== 'object' || o.config === null || Array.isArray(o.config))) return `config must be an object of settings (a file goes in configFile), got ${shown(o.config)}`;
  if (o.configFile !== undefined && (typeof o.configFile !== 'string' || o.configFile === '')) return `configFile must be a path, got ${shown(o.configFile)}`;
  if (o.log !== undefined && typeof o.log !== 'function') return `log must be a function (line: string) => void, got ${shown(o.log)}`;
  return undefined;
}

/** Starts a sandbox on a free loopback port (unless `port` says otherwise) and resolves once it listens. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<Sandbox> {
  const { startSandbox: start, loadConfigFile, SandboxConfigError } = await import('./index.js');
  const problem = optionProblem(options);
  if (problem) throw new SandboxConfigError(`startSandbox: ${problem}`);
  const fromFile = options.configFile === undefined ? {} : await loadConfigFile(options.configFile, 'configFile');
  const running = await start({
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    config: { ...fromFile, ...options.config },
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    log: options.log ?? ((line) => console.error(line)),
  });

  // After close() the server's own calls fail in its framework's words (FST_ERR_REOPENED_CLOSE_SERVER): say it in ours.
  let closed = false;
  const call = answered((method, path, body) => (closed ? Promise.reject(new Error(CLOSED)) : running.call(method, path, body)));
  const deliveries = async () => ((await call('GET', '/_sandbox/deliveries')) as { items: DeliveryRecord[] }).items.map(publicDelivery);

  return {
    baseUrl: running.baseUrl,
    apiKey: running.apiKey,
    workspaceId: running.workspaceId,
    emails: async () => ((await call('GET', '/_sandbox/emails')) as { items: SandboxEmail[] }).items.map(caught),
    ...waits(call),
    deliveries,
    // The long poll, as every workspace handle waits: one implementation, one refusal of a count over retain.
    waitForDeliveries: deliveryWaits(call).waitForDeliveries,
    async waitForIdle({ timeoutMs = 5_000 } = {}) {
      // Before the timer: a rejection of its own would come later, unhandled.
      if (closed) throw new Error(CLOSED);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`mailroom sandbox: deliveries were still pending after ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([running.deliveriesIdle(), late]);
      } finally {
        clearTimeout(timer);
      }
      return deliveries();
    },
    // Deliveries already on their way arrive first: a receiver in the same test process has seen
    // them before reset() resolves, so none lands in the next test.
    reset: async () => {
      await call('POST', '/_sandbox/reset', { settle: true });
    },
    trigger: async (event, { email } = {}) =>
      ((await call('POST', '/_sandbox/events', email === undefined ? { event } : { event, email })) as { event: Envelope }).event satisfies SandboxEnvelope,
    workspace: (options) => newWorkspace(call, running.baseUrl, options),
    async close() {
      closed = true;
      await running.close();
      // The closed sockets' handles go on the next turn: a runner that looks for open handles
      // right after close() (jest --detectOpenHandles) finds none.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

type Method = 'GET' | 'POST' | 'DELETE';
type Call = (method: Method, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;
type Answered = (method: Method, path: string, body?: unknown) => Promise<unknown>;

/**
 * A sandbox already running in another process (`mailroom sandbox`, or one a test runner's global
 * setup started): a parallel test worker asks it for a workspace of its own.
 */
export function connectSandbox(baseUrl: string): SandboxConnection {
  let root: string;
  try {
    root = new URL(baseUrl).origin;
  } catch {
    throw new TypeError(`mailroom sandbox: connectSandbox wants the sandbox's base URL (http://127.0.0.1:4025), not ${JSON.stringify(baseUrl)}`);
  }
  const http = sandboxHttp();
  const call = answered(async (method, path, body) => {
    let status: number;
    let text: string;
    try {
      const { agent, request } = await http();
      const res = await request.call(agent, {
        origin: root,
        path,
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const why = typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
      throw new Error(`mailroom sandbox: cannot reach the sandbox at ${root} (${why}): is it running?`, { cause: err });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status, body: parsed };
  });
  return { baseUrl: root, ...inWorkspace(call, undefined), workspace: (options) => newWorkspace(call, root, options) };
}

/**
 * The HTTP client of a connection, made on its first call: undici's agent and request API (the
 * parts, not the package entry, as the sandbox's deliveries take them), with time limits longer
 * than the longest long poll. Global fetch would cut a wait short at the process's limits: 300 s
 * by default, or whatever dispatcher the app under test set.
 */
function sandboxHttp(): () => Promise<{ agent: Agent; request: typeof RequestApi }> {
  let made: ReturnType<ReturnType<typeof sandboxHttp>> | undefined;
  return () =>
    (made ??= Promise.all([import('undici/lib/dispatcher/agent.js'), import('undici/lib/api/api-request.js')]).then(([{ default: AgentClass }, { default: request }]) => {
      const limit = MAX_WAIT_MS + 60_000;
      return { agent: new AgentClass({ headersTimeout: limit, bodyTimeout: limit }), request };
    }));
}

/** `emails`, the waits, `deliveries`, `reset` and `trigger` of one workspace (`undefined`: the first). */
function inWorkspace(call: Answered, workspaceId: string | undefined): Omit<SandboxWorkspace, 'baseUrl' | 'apiKey' | 'workspaceId' | 'name' | 'delete'> {
  const scope = workspaceId === undefined ? {} : { workspace: workspaceId };
  const query = (path: string) => (workspaceId === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}workspace=${encodeURIComponent(workspaceId)}`);
  const scoped: (method: 'GET' | 'POST', path: string) => Promise<unknown> = (method, path) => call(method, query(path));
  return {
    emails: async () => ((await scoped('GET', '/_sandbox/emails')) as { items: SandboxEmail[] }).items.map(caught),
    ...waits(scoped),
    deliveries: async () => ((await scoped('GET', '/_sandbox/deliveries')) as { items: DeliveryRecord[] }).items.map(publicDelivery),
    ...deliveryWaits(scoped),
    reset: async () => {
      await call('POST', '/_sandbox/reset', { ...scope, settle: true });
    },
    trigger: async (event, { email } = {}) =>
      ((await call('POST', '/_sandbox/events', { event, ...(email === undefined ? {} : { email }), ...scope })) as { event: Envelope }).event satisfies SandboxEnvelope,
  };
}

async function newWorkspace(call: Answered, baseUrl: string, options: { name?: string } = {}): Promise<SandboxWorkspace> {
  const made = (await call('POST', '/_sandbox/workspaces', options.name === undefined ? {} : { name: options.name })) as { workspaceId: string; name: string; apiKey: string };
  const id = made.workspaceId;
  // Once deleted, its members say so rather than the sandbox's 404 for an unknown workspace.
  let deleted = false;
  const own: Answered = (method, path, body) =>
    deleted ? Promise.reject(new Error(`mailroom sandbox: workspace ${id} was deleted (delete() was called); make another with workspace()`)) : call(method, path, body);
  return {
    baseUrl,
    apiKey: made.apiKey,
    workspaceId: id,
    name: made.name,
    ...inWorkspace(own, id),
    async delete() {
      if (deleted) return;
      await call('DELETE', `/_sandbox/workspaces/${encodeURIComponent(id)}`, {});
      deleted = true;
    },
  };
}

/** A long poll answered 404 because its workspace is gone (deleted under it, or before it began): the sandbox's reason, in a sentence of ours. */
function workspaceGone(err: unknown): string | undefined {
  if (!(err instanceof RefusedCall) || err.status !== 404) return undefined;
  const message = (err.body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message.startsWith('Workspace ') ? `w${message.slice(1)}` : undefined;
}

/** A sandbox endpoint's answer other than 200: what the call's caller may read to say it in its own words. */
class RefusedCall extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** A call to the sandbox's own endpoints that resolves to the body of a 200 and throws on anything else. */
function answered(call: Call): Answered {
  return async (method, path, body) => {
    const res = await call(method, path, body);
    if (res.status !== 200) {
      const message = (res.body as { message?: unknown } | undefined)?.message;
      throw new RefusedCall(`mailroom sandbox: ${method} ${path} answered ${res.status}${typeof message === 'string' ? `: ${message}` : ''}`, res.status, res.body);
    }
    return res.body;
  };
}

/** `waitForEmail` and `waitForEmails`, over the long poll `GET /_sandbox/emails/wait` (in-process or over HTTP alike). */
function waits(call: (method: 'GET' | 'POST', path: string) => Promise<unknown>): Pick<Sandbox, 'waitForEmail' | 'waitForEmails'> {
  const waitForEmails = async (count: number, filter: WaitForEmailOptions = {}): Promise<CaughtEmail[]> => {
    if (!Number.isInteger(count) || count < 1) throw new TypeError(`mailroom sandbox: waitForEmails wants a whole number of emails of at least 1, not ${String(count)}`);
    const timeoutMs = filter.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 0) throw new TypeError(`mailroom sandbox: timeoutMs must be a whole number of milliseconds, not ${String(timeoutMs)}`);
    // The long poll reads an empty filter as none: an unset variable must not match any email.
    for (const [name, value, what] of [['to', filter.to, 'address'], ['subject', filter.subject, 'text']] as const) {
      if (typeof value === 'string' && value.trim() === '') throw new TypeError(`mailroom sandbox: ${name} is empty: give the ${what} to wait for, or leave it out`);
    }
    const query = new URLSearchParams({ count: String(count), timeoutMs: String(timeoutMs) });
    if (filter.to !== undefined) query.set('to', filter.to);
    if (filter.subject !== undefined) query.set('subject', filter.subject);
    const { items, timedOut, closed } = (await call('GET', `/_sandbox/emails/wait?${query.toString()}`).catch((err: unknown) => {
      const retain = err instanceof RefusedCall && err.status === 400 ? (err.body as { retain?: unknown } | undefined)?.retain : undefined;
      if (typeof retain === 'number') throw new RangeError(`mailroom sandbox: waitForEmails(${count}): the sandbox keeps only the newest ${figure(retain)} emails (retain): a wait for more could never see them all`);
      const gone = workspaceGone(err);
      if (gone !== undefined) throw new Error(`mailroom sandbox: ${describeWait(count, filter)}: ${gone}`, { cause: err });
      throw err;
    })) as { items: SandboxEmail[]; timedOut: boolean; closed?: true };
    if (closed) throw new Error(`mailroom sandbox: the sandbox closed while waiting: ${describeWait(count, filter)} (${figure(items.length)} matching caught)`);
    if (timedOut) throw new Error(`mailroom sandbox: ${describeWait(count, filter)} within ${timeoutMs} ms (${figure(items.length)} matching caught)`);
    return items.map(caught);
  };
  return {
    waitForEmails,
    waitForEmail: async (filter = {}) => (await waitForEmails(1, filter))[0]!,
  };
}

const DEFAULT_TIMEOUT_MS = 5_000;

/** `waitForDeliveries` and `waitForIdle` of a workspace, over the long poll `GET /_sandbox/deliveries/wait`. */
function deliveryWaits(call: (method: 'GET' | 'POST', path: string) => Promise<unknown>): Pick<SandboxWorkspace, 'waitForDeliveries' | 'waitForIdle'> {
  /** `failure` (what did not happen) is followed by `until` and the time limit when the wait timed out. */
  const wait = async (query: URLSearchParams, timeoutMs: number, failure: string, until: string): Promise<SandboxDelivery[]> => {
    if (!Number.isInteger(timeoutMs) || timeoutMs < 0) throw new TypeError(`mailroom sandbox: timeoutMs must be a whole number of milliseconds, not ${String(timeoutMs)}`);
    query.set('timeoutMs', String(timeoutMs));
    const { items, timedOut, closed } = (await call('GET', `/_sandbox/deliveries/wait?${query.toString()}`).catch((err: unknown) => {
      const retain = err instanceof RefusedCall && err.status === 400 ? (err.body as { retain?: unknown } | undefined)?.retain : undefined;
      if (typeof retain === 'number') {
        throw new RangeError(`mailroom sandbox: waitForDeliveries(${query.get('count')}): the sandbox keeps only the newest ${figure(retain)} delivery attempts (retain): a wait for more could never see them all`);
      }
      const gone = workspaceGone(err);
      if (gone !== undefined) throw new Error(`mailroom sandbox: ${failure}: ${gone}`, { cause: err });
      throw err;
    })) as { items: DeliveryRecord[]; timedOut: boolean; closed?: true };
    if (closed) throw new Error(`mailroom sandbox: the sandbox closed while waiting: ${failure} ${until}`);
    if (timedOut) throw new Error(`mailroom sandbox: ${failure} ${until} ${timeoutMs} ms`);
    return items.map(publicDelivery);
  };
  return {
    waitForDeliveries(count, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
      if (!Number.isInteger(count) || count < 1) return Promise.reject(new TypeError(`mailroom sandbox: waitForDeliveries wants a whole number of deliveries of at least 1, not ${String(count)}`));
      return wait(new URLSearchParams({ count: String(count) }), timeoutMs, `${counted(count, 'delivery')} ${count === 1 ? 'was' : 'were'} not recorded`, 'within');
    },
    waitForIdle: ({ timeoutMs = DEFAULT_TIMEOUT_MS } = {}) => wait(new URLSearchParams({ idle: 'true' }), timeoutMs, 'deliveries were still pending', 'after'),
  };
}

function describeWait(count: number, filter: WaitForEmailOptions): string {
  const what = [filter.to === undefined ? '' : ` to ${filter.to}`, filter.subject === undefined ? '' : ` with a subject containing ${JSON.stringify(filter.subject)}`].join('');
  return count === 1 ? `no email${what} was caught` : `fewer than ${figure(count)} emails${what} were caught`;
}

/** A recorded attempt as the public type has it; attempts always carry their id, body and signature now. */
function publicDelivery(record: DeliveryRecord): SandboxDelivery {
  const body = record.body ?? '';
  return {
    ...record,
    id: record.id ?? '',
    event: record.event as SandboxEventName,
    body,
    signature: record.signature ?? '',
    payload: JSON.parse(body) as SandboxEnvelope,
  };
}

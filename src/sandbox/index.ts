import type { AddressInfo } from 'node:net';
import { fsReason } from '../files.js';
import { resolveConfig, SandboxConfigError, type SandboxConfig, type WebhookConfig } from './config.js';
import { countEmails } from './email-query.js';
import { LiveFeed } from './live.js';
import { Persistence } from './persistence.js';
import { buildServer } from './server.js';
import { newSecret, SandboxState } from './state.js';
import { createWebhook } from './webhooks.js';
import { addReadyKey, emptyState, workspaceParts, Workspaces } from './workspaces.js';

export type { SandboxConfig, TemplateConfig, FaultConfig, DeliveryConfig, WebhookConfig } from './config.js';
export { SandboxConfigError, loadConfigFile } from './config.js';
export type { InboxEmail, DeliveryRecord, EmailResultBody } from './state.js';
export type { Envelope } from './events.js';

export interface SandboxOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The secret of the ready key; generated when absent. */
  apiKey?: string;
  /** The workspace id of a new state (`wrk_...`); generated when absent. A state from `dataFile` keeps its own. */
  workspaceId?: string;
  /** `--data`: state persisted here, loaded at start. */
  dataFile?: string;
  config?: SandboxConfig;
  /**
   * Where the sandbox's log lines go (internal errors, failed writes of the data file); absent,
   * nowhere. The CLI passes its context's stderr, which the secret guard watches.
   */
  log?: (line: string) => void;
}

export interface RunningSandbox {
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
  /** One call to the sandbox's own routes in-process (no socket): the library's inspection and control. */
  call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Resolves once no webhook delivery is queued or in flight (retries waiting for their delay aside). */
  deliveriesSettled(): Promise<void>;
  /** Resolves once no webhook delivery is queued, in flight or waiting for a retry: none follows until a new event. */
  deliveriesIdle(): Promise<void>;
  /** Calls `listener` after each delivery attempt is recorded (and after a reset); returns the unsubscribe. */
  onDelivery(listener: () => void): () => void;
  close(): Promise<void>;
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** The key printed at start: the one asked for (added if a restored state lacks it), else the primary. */
function readyKey(state: SandboxState, wanted: string | undefined): string {
  const key =
    wanted !== undefined
      ? (state.keysBySecret.get(wanted) ?? state.addKey('Sandbox key', 'API_USER', wanted))
      : (state.keys.get(state.primaryKeyId) ?? state.keys.values().next().value ?? state.addKey('Sandbox key', 'API_USER', newSecret()));
  if (state.primaryKeyId !== key.id) state.setPrimaryKey(key);
  return key.secretKey;
}

/** The config's webhooks exist from the start; one restored from `--data` with the same URL takes the config's events and token. */
function ensureWebhooks(state: SandboxState, wanted: WebhookConfig[]): void {
  for (const want of wanted) {
    const existing = [...state.webhooks.values()].find((h) => h.url === want.url);
    if (!existing) {
      createWebhook(state, want);
      continue;
    }
    existing.events = [...new Set(want.events)];
    if (want.token !== undefined) existing.token = want.token;
    state.saveWebhook(existing);
  }
}

/** Starts the emulator of the public API (docs/sandbox-guide.md) and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const config = resolveConfig(options.config);
  if (options.apiKey !== undefined && !/^\S{8,256}$/.test(options.apiKey)) {
    throw new SandboxConfigError('the API key must be 8 to 256 characters without spaces (it travels as "Bearer <key>")');
  }
  const log = options.log ?? (() => undefined);
  if (options.workspaceId !== undefined && !/^wrk_[A-Za-z0-9]{1,64}$/.test(options.workspaceId)) {
    throw new SandboxConfigError('the workspace id must be wrk_ and 1 to 64 letters or digits');
  }
  const fresh = () => SandboxState.fresh(options.apiKey, config.retain, options.workspaceId);
  const dataFile = options.dataFile;
  const persistence = dataFile ? await Persistence.open(dataFile, fresh, (err) => log(`sandbox: cannot write ${dataFile}: ${err.message}`), undefined, config.retain) : undefined;
  const state = persistence?.current ?? fresh();
  const apiKey = readyKey(state, options.apiKey);
  await persistence?.start().catch((err: NodeJS.ErrnoException) => {
    persistence.abandon();
    throw new SandboxConfigError(`cannot write data file ${dataFile}: ${fsReason(err, 'write')}`);
  });

  const live = new LiveFeed((id) => {
    const shown = id === undefined ? state : (workspaces.get(id)?.state ?? state);
    const counts = countEmails(shown);
    return { emails: counts.total, scheduled: counts.scheduled, deliveries: shown.deliveryTotal };
  });
  const deliveryListeners = new Set<() => void>();
  // Every change of every workspace goes to the journal (--data, with the id of a workspace made
  // for tests) and to the inbox pages' live stream.
  const wire = (ws: SandboxState, w: string | undefined) =>
    workspaceParts(ws, config, (change) => {
      persistence?.record(change, w);
      live.changed(w);
      if (w === undefined && (change.t === 'delivery' || change.t === 'reset')) for (const listener of deliveryListeners) listener();
    });
  const primary = wire(state, undefined);
  ensureWebhooks(state, config.webhooks);
  const make = (name: string) => {
    const made = emptyState(name, config.retain);
    persistence?.addWorkspace(made);
    const parts = wire(made, made.workspace.id);
    addReadyKey(made);
    return parts;
  };
  const restored = (persistence?.workspaces ?? []).map((ws) => wire(ws, ws.workspace.id));
  const dropped = (id: string) => {
    persistence?.removeWorkspace(id);
    live.forget(id);
  };
  const workspaces = new Workspaces(primary, make, restored, persistence !== undefined, dropped);
  const { deliverer } = primary;

  const durable = persistence ? () => persistence.durable() : () => Promise.resolve();
  const app = await buildServer({ state, config, emails: primary.emails, deliverer, live, durable, reset: primary.reset, log, waiters: primary.waiters, workspaces });
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host }).catch(async (err: unknown) => {
    await workspaces.close();
    live.close();
    await persistence?.close();
    throw err;
  });
  const { port } = app.server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    baseUrl: `http://${hostForUrl(host)}:${port}`,
    apiKey,
    workspaceId: state.workspace.id,
    async call(method, path, body) {
      const res = await app.inject({ method, url: path, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }) });
      return { status: res.statusCode, body: res.json() };
    },
    deliveriesSettled: () => deliverer.settled(),
    deliveriesIdle: () => deliverer.idle(),
    onDelivery(listener) {
      deliveryListeners.add(listener);
      return () => deliveryListeners.delete(listener);
    },
    close() {
      closing ??= (async () => {
        deliveryListeners.clear();
        await workspaces.close();
        live.close();
        await app.close();
        await persistence?.close();
      })();
      return closing;
    },
  };
}

import type { ResolvedConfig } from './config.js';
import { Deliverer } from './deliveries.js';
import { DeliveryWaits } from './delivery-waits.js';
import { EmailService } from './emails.js';
import { HttpError } from './http-errors.js';
import { contactPayload, envelope } from './events.js';
import { Scheduler } from './scheduler.js';
import { newId, newSecret, SandboxState, type Change, type StoredKey } from './state.js';
import { EmailWaiters, type WaitsEnd } from './waiters.js';

/** One workspace's store and what acts on it: its emails, webhook deliveries, scheduled sends and waits. */
export interface WorkspaceParts {
  readonly state: SandboxState;
  readonly emails: EmailService;
  readonly deliverer: Deliverer;
  readonly waiters: EmailWaiters;
  readonly deliveryWaits: DeliveryWaits;
  /** After `state.reset()`: drops scheduled sends and pending deliveries. */
  reset(): void;
  /** Ends its waits (saying why), its deliveries and its scheduled sends: the sandbox is closing, or the workspace was deleted. */
  close(why?: WaitsEnd): Promise<void>;
}

/**
 * Wires a workspace's store to its services. `onChange` sees every change first (the `--data`
 * journal, the inbox's live stream); the waits hear of each email after it.
 */
export function workspaceParts(state: SandboxState, config: ResolvedConfig, onChange: (change: Change) => void): WorkspaceParts {
  const waiters = new EmailWaiters();
  const deliverer = new Deliverer(state, config.deliveries);
  const deliveryWaits = new DeliveryWaits(state, deliverer);
  state.onChange = (change) => {
    onChange(change);
    if (change.t === 'email') waiters.caught(change.email);
    else if (change.t === 'request') for (const { email } of change.emails) waiters.caught(email);
    else if (change.t === 'reset' || change.t === 'emailsCleared') waiters.cleared();
    if (change.t === 'delivery' || change.t === 'reset') deliveryWaits.recorded();
  };
  const scheduler = new Scheduler((email) => state.markSent(email));
  const emails = new EmailService(state, config, {
    contactChanged: (change, now) => {
      if (deliverer.subscribers(change.kind).length === 0) return;
      deliverer.publishSoon(envelope(change.kind, contactPayload(change.contact, state.workspace.id), now));
    },
    scheduled: (email) => scheduler.add(email),
  });
  for (const email of state.emails) if (email.status === 'SCHEDULED') scheduler.add(email);
  return {
    state,
    emails,
    deliverer,
    waiters,
    deliveryWaits,
    reset() {
      scheduler.clear();
      deliverer.cancelPending();
    },
    async close(why: WaitsEnd = 'closed') {
      waiters.close(why);
      deliveryWaits.close(why);
      await deliverer.close();
      scheduler.stop();
    },
  };
}

/** How many workspaces `POST /_sandbox/workspaces` makes before refusing: one per test worker is the use. */
export const MAX_WORKSPACES = 1000;

/**
 * The sandbox's workspaces: the one it starts with (its ready key's, saved by `--data`) and those
 * made for tests with `POST /_sandbox/workspaces`, each a store of its own (keys, webhooks, emails,
 * contacts, deliveries, idempotency keys, monthly count), found by the API key of a request.
 */
export class Workspaces {
  private readonly made = new Map<string, WorkspaceParts>();

  /**
   * `restored`: the workspaces made before a restart, saved by `--data` (`saved`). `dropped` hears
   * of each deletion (the `--data` journal, the inbox's live streams), before its waits end.
   */
  constructor(
    readonly primary: WorkspaceParts,
    private readonly make?: (name: string) => WorkspaceParts,
    restored: WorkspaceParts[] = [],
    private readonly saved = false,
    private readonly dropped: (id: string) => void = () => undefined,
  ) {
    for (const parts of restored) this.made.set(parts.state.workspace.id, parts);
  }

  /** A new workspace with a ready key (role API_USER). */
  create(name: string | undefined): { parts: WorkspaceParts; key: StoredKey } {
    if (!this.make) throw new HttpError(404, 'This sandbox makes no workspaces');
    if (this.made.size >= MAX_WORKSPACES) {
      throw new HttpError(
        409,
        `This sandbox has ${MAX_WORKSPACES} workspaces already: delete those your tests are done with (mailroom sandbox workspace delete <wrk_id>, DELETE /_sandbox/workspaces/<wrk_id>, or the library's workspace.delete()), or ${this.saved ? 'start it with another --data file' : 'restart it'} to start over`,
      );
    }
    const parts = this.make(name ?? `Test workspace ${this.made.size + 1}`);
    this.made.set(parts.state.workspace.id, parts);
    return { parts, key: parts.state.keys.get(parts.state.primaryKeyId)! };
  }

  /**
   * Deletes a workspace made with `create` (its keys stop authenticating at once; its waits end
   * saying so; its deliveries, retries and scheduled sends stop). The first one stays: it holds the
   * ready key the sandbox printed, and the config's webhooks.
   */
  async delete(id: string): Promise<void> {
    if (id === this.primary.state.workspace.id) {
      throw new HttpError(409, `Workspace ${id} is this sandbox's first workspace (its ready key's) and cannot be deleted: empty it with POST /_sandbox/reset instead`);
    }
    const parts = this.made.get(id);
    if (!parts) throw new HttpError(404, `Workspace ${id} not found in this sandbox`);
    this.made.delete(id);
    this.dropped(id);
    await parts.close('deleted');
  }

  /** Whether this workspace still exists (not deleted since a request found it). */
  holds(parts: WorkspaceParts): boolean {
    return parts === this.primary || this.made.get(parts.state.workspace.id) === parts;
  }

  get(id: string): WorkspaceParts | undefined {
    return id === this.primary.state.workspace.id ? this.primary : this.made.get(id);
  }

  /** The workspace id of a query or body; absent: the first workspace. An unknown id is a 404. */
  pick(id: string | undefined): WorkspaceParts {
    if (id === undefined || id === '') return this.primary;
    const parts = this.get(id);
    if (!parts) throw new HttpError(404, `Workspace ${id} not found in this sandbox`);
    return parts;
  }

  /** The key with this secret and its workspace. The first workspace is looked in first: most requests are its. */
  keyOf(secret: string): { key: StoredKey; parts: WorkspaceParts } | undefined {
    const key = this.primary.state.keysBySecret.get(secret);
    if (key) return { key, parts: this.primary };
    for (const parts of this.made.values()) {
      const found = parts.state.keysBySecret.get(secret);
      if (found) return { key: found, parts };
    }
    return undefined;
  }

  all(): WorkspaceParts[] {
    return [this.primary, ...this.made.values()];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((parts) => parts.close()));
  }
}

/** The store of a workspace made for a test, keeping as much as the first, still without a key (`addReadyKey`). */
export function emptyState(name: string, retain: number): SandboxState {
  return new SandboxState({ id: newId('workspace'), name }, '', retain);
}

/** Its ready key (role API_USER), made once the store's changes are heard (`--data` saves them). */
export function addReadyKey(state: SandboxState): void {
  state.setPrimaryKey(state.addKey('Sandbox key', 'API_USER', newSecret()));
}

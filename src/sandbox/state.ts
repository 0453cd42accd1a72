import { randomFillSync } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '../schema/index.js';
import type { SandboxEmail, Scalar } from './public-types.js';

export type { Scalar };

/**
 * An email caught by the sandbox: what `GET /_sandbox/emails` lists and the inbox shows. Its
 * `text`, when the sender gave none, is generated when first read (text.ts withText).
 */
export type InboxEmail = Omit<SandboxEmail, 'text'> & { text: string | undefined };

/** The email result object of the public API. */
export interface EmailResultBody {
  id: string;
  messageId: string;
  status: 'SENT' | 'SCHEDULED';
  to: string;
  type: 'raw' | 'templated';
  from?: string;
  subject?: string;
  template?: string;
  groupBy?: string;
}

export interface StoredKey {
  id: string;
  displayName: string;
  role: string;
  status: 'ACTIVE';
  secretKey: string;
  createdAt: string;
  updatedAt: string;
}

export interface StoredWebhook {
  id: string;
  url: string;
  events: string[];
  token: string;
  createdAt: string;
}

export interface Contact {
  id: string;
  email: string;
  properties: Record<string, Scalar>;
  createdAt: string;
  updatedAt: string;
}

/** One delivery attempt, as `GET /_sandbox/deliveries` lists it. */
export interface DeliveryRecord {
  /** Absent in data files written before attempts had ids; such attempts cannot be resent. */
  id?: string;
  webhookId: string;
  event: string;
  url: string;
  attempt: number;
  statusCode?: number;
  error?: string;
  durationMs: number;
  createdAt: string;
  /** The exact bytes POSTed and the signature header sent with them. */
  body?: string;
  signature?: string;
  /** When the next attempt is due, for a failed attempt that will be retried. */
  nextRetryAt?: string;
  /** The attempt this delivery was resent from (the inbox's "resend"). */
  resendOf?: string;
  /** Why it was not sent at all (a URL off this machine, without allowRemote); `error` says "not delivered". */
  notDelivered?: string;
}

export interface Workspace {
  id: string;
  name: string;
}

/** Everything `--data` persists. */
export interface Snapshot {
  version: 1;
  /** The journal (see persistence.ts) whose changes come after this snapshot; absent: none. */
  journal?: number;
  workspace: Workspace;
  primaryKeyId: string;
  keys: StoredKey[];
  webhooks: StoredWebhook[];
  emails: InboxEmail[];
  contacts: Contact[];
  deliveries: DeliveryRecord[];
  idempotency: [string, EmailResultBody][];
  sentThisMonth: { month: string; count: number };
}

/**
 * One change to the state, as `--data` journals it: what a restart replays on top of the last
 * snapshot. Each carries whole records (upserts), so replaying one twice changes nothing.
 */
export type Change =
  | { t: 'email'; email: InboxEmail; result?: EmailResultBody }
  | { t: 'sent'; id: string }
  | { t: 'emailDeleted'; id: string }
  | { t: 'emailsCleared' }
  | { t: 'contact'; contact: Contact }
  | { t: 'contactDeleted'; email: string }
  | { t: 'key'; key: StoredKey }
  | { t: 'keyDeleted'; id: string }
  | { t: 'webhook'; webhook: StoredWebhook }
  | { t: 'webhookDeleted'; id: string }
  | { t: 'delivery'; record: DeliveryRecord }
  | { t: 'primaryKey'; id: string }
  | { t: 'reset' };

/** Older delivery attempts are dropped past this many, so a long-running sandbox keeps a bounded log. */
export const DELIVERY_LOG_LIMIT = 10_000;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
// Random bytes are drawn in blocks: one crypto call per id costs more than the rest of a send.
const pool = Buffer.alloc(8192);
let poolOffset = pool.length;

/** Random base62 string; ids are opaque to clients, so only uniqueness matters. */
export function randomToken(length: number): string {
  if (poolOffset + length > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[pool[poolOffset + i]! % 62];
  poolOffset += length;
  return out;
}

export function newId(kind: IdKind, length = 20): string {
  return `${ID_PREFIX[kind]}${randomToken(length)}`;
}

export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/**
 * The in-memory store of one sandbox. Maps keep every per-request lookup O(1). Every change goes
 * through a method here that reports it to `onChange` (the `--data` journal): callers read the
 * maps freely but change them only through these methods.
 */
export class SandboxState {
  workspace: Workspace;
  primaryKeyId: string;
  readonly keys = new Map<string, StoredKey>();
  readonly keysBySecret = new Map<string, StoredKey>();
  readonly webhooks = new Map<string, StoredWebhook>();
  emails: InboxEmail[] = [];
  readonly emailsById = new Map<string, InboxEmail>();
  readonly contacts = new Map<string, Contact>();
  deliveries: DeliveryRecord[] = [];
  readonly idempotency = new Map<string, EmailResultBody>();
  sentThisMonth = { month: monthOf(new Date()), count: 0 };
  onChange: ((change: Change) => void) | undefined;
  private lastKeyCreatedAt = 0;

  constructor(workspace: Workspace, primaryKeyId: string) {
    this.workspace = workspace;
    this.primaryKeyId = primaryKeyId;
  }

  static fresh(secretKey: string | undefined): SandboxState {
    const state = new SandboxState({ id: newId('workspace'), name: 'Sandbox workspace' }, '');
    state.primaryKeyId = state.addKey('Sandbox key', 'API_USER', secretKey ?? newSecret()).id;
    return state;
  }

  static fromSnapshot(snap: Snapshot): SandboxState {
    const state = new SandboxState(snap.workspace, snap.primaryKeyId);
    for (const key of snap.keys) state.putKey(key);
    for (const hook of snap.webhooks) state.webhooks.set(hook.id, hook);
    for (const email of snap.emails) state.addEmail(email);
    for (const contact of snap.contacts) state.contacts.set(contact.email.toLowerCase(), contact);
    state.deliveries = snap.deliveries;
    for (const [k, v] of snap.idempotency) state.idempotency.set(k, v);
    state.sentThisMonth = snap.sentThisMonth;
    return state;
  }

  snapshot(): Snapshot {
    return {
      version: 1,
      workspace: this.workspace,
      primaryKeyId: this.primaryKeyId,
      keys: [...this.keys.values()],
      webhooks: [...this.webhooks.values()],
      emails: this.emails,
      contacts: [...this.contacts.values()],
      deliveries: this.deliveries,
      idempotency: [...this.idempotency],
      sentThisMonth: this.sentThisMonth,
    };
  }

  /**
   * Creation times are made strictly increasing so that paging by `startAt` (a timestamp) never
   * repeats or skips a key created in the same millisecond as another.
   */
  addKey(displayName: string, role: string, secretKey: string): StoredKey {
    const at = Math.max(Date.now(), this.lastKeyCreatedAt + 1);
    const createdAt = new Date(at).toISOString();
    const key: StoredKey = { id: newId('apiKey'), displayName, role, status: 'ACTIVE', secretKey, createdAt, updatedAt: createdAt };
    this.saveKey(key);
    return key;
  }

  /** A new key, or one whose fields the caller changed. */
  saveKey(key: StoredKey): void {
    this.putKey(key);
    this.onChange?.({ t: 'key', key });
  }

  deleteKey(key: StoredKey): void {
    this.keys.delete(key.id);
    this.keysBySecret.delete(key.secretKey);
    this.onChange?.({ t: 'keyDeleted', id: key.id });
  }

  setPrimaryKey(key: StoredKey): void {
    this.primaryKeyId = key.id;
    this.onChange?.({ t: 'primaryKey', id: key.id });
  }

  /** Puts an email in the inbox as it was; not journaled: for restoring a state and for tests. */
  addEmail(email: InboxEmail): void {
    this.emails.push(email);
    this.emailsById.set(email.id, email);
  }

  /** An accepted email: into the inbox, counted against the month, its idempotency key claimed. */
  acceptEmail(email: InboxEmail, result: EmailResultBody, now: Date): void {
    this.addEmail(email);
    this.countSent(now);
    if (email.idempotencyKey !== undefined) this.idempotency.set(email.idempotencyKey, result);
    this.onChange?.(email.idempotencyKey !== undefined ? { t: 'email', email, result } : { t: 'email', email });
  }

  /** The inbox's "delete": the email goes; its idempotency key still answers the email it created. */
  deleteEmail(id: string): boolean {
    if (!this.dropEmail(id)) return false;
    this.onChange?.({ t: 'emailDeleted', id });
    return true;
  }

  /** The inbox's "clear all": every caught email goes; contacts, deliveries and keys stay. */
  clearEmails(): number {
    const n = this.emails.length;
    this.dropEmails();
    this.onChange?.({ t: 'emailsCleared' });
    return n;
  }

  /** A scheduled email whose time came. */
  markSent(email: InboxEmail): void {
    email.status = 'SENT';
    this.onChange?.({ t: 'sent', id: email.id });
  }

  /** A new contact, or one whose fields the caller changed. */
  saveContact(contact: Contact): void {
    this.contacts.set(contact.email.toLowerCase(), contact);
    this.onChange?.({ t: 'contact', contact });
  }

  deleteContact(contact: Contact): void {
    this.contacts.delete(contact.email.toLowerCase());
    this.onChange?.({ t: 'contactDeleted', email: contact.email });
  }

  /** A new webhook, or one whose fields the caller changed. */
  saveWebhook(webhook: StoredWebhook): void {
    this.webhooks.set(webhook.id, webhook);
    this.onChange?.({ t: 'webhook', webhook });
  }

  deleteWebhook(webhook: StoredWebhook): void {
    this.webhooks.delete(webhook.id);
    this.onChange?.({ t: 'webhookDeleted', id: webhook.id });
  }

  addDelivery(record: DeliveryRecord): void {
    this.pushDelivery(record);
    this.onChange?.({ t: 'delivery', record });
  }

  /** Replays a journaled change (see persistence.ts); reports nothing. */
  apply(change: Change): void {
    switch (change.t) {
      case 'email':
        if (this.emailsById.has(change.email.id)) return;
        this.addEmail(change.email);
        this.countSent(new Date(change.email.createdAt));
        if (change.result && change.email.idempotencyKey !== undefined) this.idempotency.set(change.email.idempotencyKey, change.result);
        return;
      case 'emailDeleted':
        this.dropEmail(change.id);
        return;
      case 'emailsCleared':
        this.dropEmails();
        return;
      case 'sent': {
        const email = this.emailsById.get(change.id);
        if (email) email.status = 'SENT';
        return;
      }
      case 'contact':
        this.contacts.set(change.contact.email.toLowerCase(), change.contact);
        return;
      case 'contactDeleted':
        this.contacts.delete(change.email.toLowerCase());
        return;
      case 'key': {
        const old = this.keys.get(change.key.id);
        if (old) this.keysBySecret.delete(old.secretKey);
        this.putKey(change.key);
        return;
      }
      case 'keyDeleted': {
        const key = this.keys.get(change.id);
        if (key) {
          this.keys.delete(key.id);
          this.keysBySecret.delete(key.secretKey);
        }
        return;
      }
      case 'webhook':
        this.webhooks.set(change.webhook.id, change.webhook);
        return;
      case 'webhookDeleted':
        this.webhooks.delete(change.id);
        return;
      case 'delivery':
        this.pushDelivery(change.record);
        return;
      case 'primaryKey':
        this.primaryKeyId = change.id;
        return;
      case 'reset':
        this.clear();
        return;
    }
  }

  sentIn(now: Date): number {
    return this.sentThisMonth.month === monthOf(now) ? this.sentThisMonth.count : 0;
  }

  /** `POST /_sandbox/reset`: caught mail and what follows from it go; keys and webhooks stay. */
  reset(): void {
    this.clear();
    this.onChange?.({ t: 'reset' });
  }

  private clear(): void {
    this.emails = [];
    this.emailsById.clear();
    this.contacts.clear();
    this.deliveries = [];
    this.idempotency.clear();
    this.sentThisMonth = { month: monthOf(new Date()), count: 0 };
  }

  private dropEmail(id: string): boolean {
    const email = this.emailsById.get(id);
    if (!email) return false;
    this.emailsById.delete(id);
    this.emails.splice(this.emails.indexOf(email), 1);
    return true;
  }

  private dropEmails(): void {
    this.emails = [];
    this.emailsById.clear();
  }

  /** Counts one accepted email against the monthly limit, starting over each calendar month (UTC). */
  private countSent(now: Date): void {
    const month = monthOf(now);
    if (this.sentThisMonth.month !== month) this.sentThisMonth = { month, count: 0 };
    this.sentThisMonth.count += 1;
  }

  private pushDelivery(record: DeliveryRecord): void {
    const log = this.deliveries;
    log.push(record);
    if (log.length > DELIVERY_LOG_LIMIT) log.splice(0, log.length - DELIVERY_LOG_LIMIT);
  }

  private putKey(key: StoredKey): void {
    this.keys.set(key.id, key);
    this.keysBySecret.set(key.secretKey, key);
    this.lastKeyCreatedAt = Math.max(this.lastKeyCreatedAt, Date.parse(key.createdAt));
  }
}

export function newSecret(): string {
  return `${ID_PREFIX.secretKey}${randomToken(32)}`;
}

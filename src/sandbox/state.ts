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
  displayName?: string;
  description?: string;
  /** Absent: ACTIVE. Only an ACTIVE webhook gets deliveries. */
  status?: 'ACTIVE' | 'PAUSED' | 'BANNED';
  updatedAt?: string;
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

/** Everything `--data` persists: the first workspace's store, and the others' (`workspaces`). */
export interface Snapshot extends WorkspaceSnapshot {
  version: 1;
  /** The journal (see persistence.ts) whose changes come after this snapshot; absent: none. */
  journal?: number;
  /** The workspaces made with `POST /_sandbox/workspaces`, in the order they were made; absent in older files: none. */
  workspaces?: WorkspaceSnapshot[];
}

/** One workspace's store, as `--data` saves it. */
export interface WorkspaceSnapshot {
  workspace: Workspace;
  primaryKeyId: string;
  keys: StoredKey[];
  webhooks: StoredWebhook[];
  emails: InboxEmail[];
  contacts: Contact[];
  deliveries: DeliveryRecord[];
  idempotency: [string, EmailResultBody][];
  sentThisMonth: { month: string; count: number };
  /** What the counts cover beyond the emails and deliveries kept (`retain`); absent in older files: nothing. */
  totals?: Totals;
}

/** Emails caught (by status and kind) and delivery attempts made since the last reset, kept or not. */
export interface Totals {
  emails: Tally;
  deliveries: number;
  /** Deliveries the full delivery queue had no room for (deliveries.maxQueued); absent in older files: none counted. */
  dropped?: number;
  /** Emails no longer kept that were still scheduled: their send, when due, still moves the count. */
  droppedScheduled: string[];
}

export type Tally = Record<'SENT' | 'SCHEDULED', Record<'raw' | 'templated', number>>;

const emptyTally = (): Tally => ({ SENT: { raw: 0, templated: 0 }, SCHEDULED: { raw: 0, templated: 0 } });

/**
 * One change to the state, as `--data` journals it: what a restart replays on top of the last
 * snapshot. Each carries whole records (upserts), so replaying one twice changes nothing.
 */
export type Change =
  | EmailChange
  /**
   * The emails one request (`POST /v1/emails`, `/v1/emails/batch`) accepted, in order, with the
   * request's body as received (`body`; absent when read back from a journal): `--data` journals
   * it as that body when every entry of it was accepted (journal-lines.ts).
   */
  | { t: 'request'; emails: EmailChange[]; body?: RequestBody }
  /** `type`: so that the counts stay exact for an email no longer kept (absent in older journals). */
  | { t: 'sent'; id: string; type?: InboxEmail['type'] }
  | { t: 'emailDeleted'; id: string }
  | { t: 'emailsCleared' }
  | { t: 'contact'; contact: Contact }
  | { t: 'contactDeleted'; email: string }
  | { t: 'key'; key: StoredKey }
  | { t: 'keyDeleted'; id: string }
  | { t: 'webhook'; webhook: StoredWebhook }
  | { t: 'webhookDeleted'; id: string }
  /** `dropped`: a delivery the full queue had no room for, counted apart (absent in older journals). */
  | { t: 'delivery'; record: DeliveryRecord; dropped?: true }
  | { t: 'primaryKey'; id: string }
  | { t: 'reset' }
  /** A workspace made with `POST /_sandbox/workspaces` (empty: its key follows as changes of its own). */
  | { t: 'workspace'; workspace: Workspace }
  /** That workspace deleted (`DELETE /_sandbox/workspaces/<id>`): a replay drops it and whatever it held. */
  | { t: 'workspaceDeleted'; id: string };

/** `result`: when the email claimed an idempotency key; `contact`: the contact its send created or updated. */
export type EmailChange = { t: 'email'; email: InboxEmail; result?: EmailResultBody; contact?: Contact };

/** A request's body as received, and what it was. */
export interface RequestBody {
  bytes: Buffer;
  /** A batch (`{ "emails": [...] }`) or one email. */
  batch: boolean;
  /** How many emails it held. */
  entries: number;
  /** The request's time, as the emails' `createdAt`. */
  at: string;
  requestId: string | undefined;
  /** The seed of its emails' ids (seeded-ids.ts). */
  seed: string;
}

/**
 * A sandbox keeps the newest this many emails, delivery attempts, contacts and idempotency keys
 * (the config's `retain`, `--retain`), so that one left running under a load test holds bounded
 * memory; the counts it reports cover everything since the last reset (docs/sandbox-guide.md).
 */
export const DEFAULT_RETAIN = 10_000;

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

/**
 * A list that drops from its front in O(1): Array#shift copies a large array (V8 moves the start
 * in place only for small ones), and deleting a Map's oldest entry makes the next iteration skip
 * every hole left before it. Drops leave a gap at the front, closed when the list is read or
 * once the gap is as long as the rest.
 */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    (this.items as (T | undefined)[])[this.head] = undefined;
    this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) this.view();
    return item;
  }

  /** The items, oldest first: the list itself (read it, change it only through this class). */
  view(): T[] {
    if (this.head > 0) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return this.items;
  }

  remove(item: T): boolean {
    const items = this.view();
    const at = items.indexOf(item);
    if (at < 0) return false;
    items.splice(at, 1);
    return true;
  }
}

export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** The month of a time the sandbox wrote (`toISOString`: 2026-11-26T07:59:54.163Z), read without a Date; any other form through one. */
function monthOfStamp(at: string): string {
  return at.length === 24 && at[23] === 'Z' && at[4] === '-' && at[10] === 'T' ? at.slice(0, 7) : monthOf(new Date(at));
}

const DROPPED = 'dropped:';

/** Why a delivery the full queue had no room for was not delivered (deliveries.ts); isDropped() tells one. */
export const droppedReason = (maxQueued: number | undefined): string => `${DROPPED} the delivery queue is full (${maxQueued} waiting for a turn or a retry, deliveries.maxQueued)`;

export const isDropped = (record: DeliveryRecord): boolean => record.notDelivered?.startsWith(DROPPED) === true;

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
  private emailLog = new Fifo<InboxEmail>();
  readonly emailsById = new Map<string, InboxEmail>();
  readonly contacts = new Map<string, Contact>();
  private contactOrder = new Fifo<Contact>();
  private deliveryLog = new Fifo<DeliveryRecord>();
  readonly idempotency = new Map<string, EmailResultBody>();
  private idempotencyOrder = new Fifo<string>();
  sentThisMonth = { month: monthOf(new Date()), count: 0 };
  /** Emails caught since the last reset, kept or not, by status and kind. */
  tally = emptyTally();
  /** Delivery attempts made since the last reset, kept or not. */
  deliveryTotal = 0;
  /** Deliveries dropped since the last reset because the delivery queue was full (deliveries.maxQueued). */
  deliveriesDropped = 0;
  private droppedScheduled = new Set<string>();
  private monthAt: Date | undefined;
  private monthOfNow = '';
  onChange: ((change: Change) => void) | undefined;
  private lastKeyCreatedAt = 0;
  /** The accepted emails of the request under way (holdEmails), reported as one change at its end. */
  private held: EmailChange[] | undefined;

  constructor(
    workspace: Workspace,
    primaryKeyId: string,
    /** How many of the newest emails, deliveries, contacts and idempotency keys are kept. */
    readonly retain = DEFAULT_RETAIN,
  ) {
    this.workspace = workspace;
    this.primaryKeyId = primaryKeyId;
  }

  static fresh(secretKey: string | undefined, retain = DEFAULT_RETAIN, workspaceId?: string): SandboxState {
    const state = new SandboxState({ id: workspaceId ?? newId('workspace'), name: 'Sandbox workspace' }, '', retain);
    state.primaryKeyId = state.addKey('Sandbox key', 'API_USER', secretKey ?? newSecret()).id;
    return state;
  }

  static fromSnapshot(snap: WorkspaceSnapshot, retain = DEFAULT_RETAIN): SandboxState {
    const state = new SandboxState(snap.workspace, snap.primaryKeyId, retain);
    for (const key of snap.keys) state.putKey(key);
    for (const hook of snap.webhooks) state.webhooks.set(hook.id, hook);
    for (const email of snap.emails) state.addEmail(email);
    for (const contact of snap.contacts) state.putContact(contact);
    for (const record of snap.deliveries) state.pushDelivery(record);
    for (const [k, v] of snap.idempotency) state.putIdempotency(k, v);
    state.sentThisMonth = snap.sentThisMonth;
    if (snap.totals) {
      state.tally = snap.totals.emails;
      state.deliveryTotal = snap.totals.deliveries;
      state.deliveriesDropped = snap.totals.dropped ?? 0;
      for (const id of snap.totals.droppedScheduled) state.droppedScheduled.add(id);
    }
    return state;
  }

  /** The emails kept, oldest first (read only: change them through the methods here). */
  get emails(): InboxEmail[] {
    return this.emailLog.view();
  }

  /** The delivery attempts kept, oldest first (read only). */
  get deliveries(): DeliveryRecord[] {
    return this.deliveryLog.view();
  }

  /** Emails caught since the last reset, kept or not. */
  get emailTotal(): number {
    const t = this.tally;
    return t.SENT.raw + t.SENT.templated + t.SCHEDULED.raw + t.SCHEDULED.templated;
  }

  snapshot(): Snapshot {
    return { version: 1, ...this.workspaceSnapshot() };
  }

  workspaceSnapshot(): WorkspaceSnapshot {
    return {
      workspace: this.workspace,
      primaryKeyId: this.primaryKeyId,
      keys: [...this.keys.values()],
      webhooks: [...this.webhooks.values()],
      emails: this.emails,
      contacts: [...this.contacts.values()],
      deliveries: this.deliveries,
      idempotency: [...this.idempotency],
      sentThisMonth: this.sentThisMonth,
      totals: { emails: this.tally, deliveries: this.deliveryTotal, dropped: this.deliveriesDropped, droppedScheduled: [...this.droppedScheduled] },
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

  /**
   * Puts an email in the inbox as it was (and counts it); past `retain` emails, the oldest goes.
   * Not journaled: for restoring a state and for tests.
   */
  addEmail(email: InboxEmail): void {
    this.emailLog.push(email);
    this.emailsById.set(email.id, email);
    this.tally[email.status][email.type] += 1;
    if (this.emailLog.length > this.retain) {
      const oldest = this.emailLog.shift()!;
      this.emailsById.delete(oldest.id);
      if (oldest.status === 'SCHEDULED') this.droppedScheduled.add(oldest.id);
    }
  }

  /**
   * An accepted email: into the inbox, counted against the month, its idempotency key claimed, and
   * the contact its send created or changed (contacts.ts recipientContact) saved: one change.
   */
  acceptEmail(email: InboxEmail, result: EmailResultBody, now: Date, contact?: Contact): void {
    this.addEmail(email);
    this.countSent(now);
    // EmailService answered a known key with its first result, so this one is new.
    const keyed = email.idempotencyKey !== undefined;
    if (keyed) this.putIdempotency(email.idempotencyKey!, result, true);
    if (contact) this.putContact(contact);
    if (!this.onChange) return;
    const change: EmailChange = { t: 'email', email };
    if (keyed) change.result = result;
    if (contact) change.contact = contact;
    if (this.held) this.held.push(change);
    else this.onChange(change);
  }

  /** From now until releaseEmails(), the emails accepted are one request's. */
  holdEmails(): void {
    this.held = [];
  }

  /** Reports the emails accepted since holdEmails(), if any, as one `request` change with the request's body. */
  releaseEmails(body: RequestBody): void {
    const emails = this.held;
    this.held = undefined;
    if (emails && emails.length > 0) this.onChange?.({ t: 'request', emails, body });
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

  /** A scheduled email whose time came (also one no longer kept: it still counts). */
  markSent(email: InboxEmail): void {
    this.countDue(email.id, email.type);
    email.status = 'SENT';
    this.onChange?.({ t: 'sent', id: email.id, type: email.type });
  }

  /** A new contact, or one whose fields the caller changed. */
  saveContact(contact: Contact): void {
    this.putContact(contact);
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

  /** A delivery the full queue had no room for: in the log as not delivered, and counted. */
  addDroppedDelivery(record: DeliveryRecord): void {
    this.pushDelivery(record);
    this.deliveriesDropped += 1;
    this.onChange?.({ t: 'delivery', record, dropped: true });
  }

  /** Replays a journaled change (see persistence.ts); reports nothing. */
  apply(change: Change): void {
    switch (change.t) {
      case 'email':
        if (this.emailsById.has(change.email.id)) return;
        this.addEmail(change.email);
        this.countMonth(monthOfStamp(change.email.createdAt));
        if (change.result && change.email.idempotencyKey !== undefined) this.putIdempotency(change.email.idempotencyKey, change.result);
        if (change.contact) this.putContact(change.contact);
        return;
      case 'request':
        for (const email of change.emails) this.apply(email);
        return;
      case 'emailDeleted':
        this.dropEmail(change.id);
        return;
      case 'emailsCleared':
        this.dropEmails();
        return;
      case 'sent': {
        const email = this.emailsById.get(change.id);
        // Older journals have no `type`: they were written when every email was kept.
        const type = email?.type ?? change.type;
        if (type) this.countDue(change.id, type);
        if (email) email.status = 'SENT';
        return;
      }
      case 'contact':
        this.putContact(change.contact);
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
        if (change.dropped) this.deliveriesDropped += 1;
        return;
      case 'primaryKey':
        this.primaryKeyId = change.id;
        return;
      case 'reset':
        this.clear();
        return;
      case 'workspace':
      case 'workspaceDeleted':
        // Made and deleted by the store of all workspaces (persistence.ts), not by one of them.
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
    this.dropEmails();
    this.contacts.clear();
    this.contactOrder = new Fifo();
    this.deliveryLog = new Fifo();
    this.deliveryTotal = 0;
    this.deliveriesDropped = 0;
    this.idempotency.clear();
    this.idempotencyOrder = new Fifo();
    this.sentThisMonth = { month: monthOf(new Date()), count: 0 };
  }

  private dropEmail(id: string): boolean {
    const email = this.emailsById.get(id);
    if (!email) return false;
    this.emailsById.delete(id);
    this.emailLog.remove(email);
    this.tally[email.status][email.type] -= 1;
    return true;
  }

  private dropEmails(): void {
    this.emailLog = new Fifo();
    this.emailsById.clear();
    this.tally = emptyTally();
    this.droppedScheduled.clear();
  }

  /** Moves a scheduled email's count to sent, if it is counted: kept, or dropped by `retain` (not deleted). */
  private countDue(id: string, type: InboxEmail['type']): void {
    const email = this.emailsById.get(id);
    const counted = email ? email.status === 'SCHEDULED' : this.droppedScheduled.delete(id);
    if (!counted) return;
    this.tally.SCHEDULED[type] -= 1;
    this.tally.SENT[type] += 1;
  }

  /** Past `retain` contacts, the one created longest ago goes (a record deleted or replaced since is skipped). */
  private putContact(contact: Contact): void {
    const key = contact.email.toLowerCase();
    if (this.contacts.get(key) === contact) return;
    this.contacts.set(key, contact);
    this.contactOrder.push(contact);
    while (this.contacts.size > this.retain) {
      const oldest = this.contactOrder.shift()!;
      const oldKey = oldest.email.toLowerCase();
      if (this.contacts.get(oldKey) === oldest) this.contacts.delete(oldKey);
    }
  }

  private putIdempotency(key: string, result: EmailResultBody, isNew = false): void {
    if (!isNew && this.idempotency.has(key)) return;
    this.idempotency.set(key, result);
    this.idempotencyOrder.push(key);
    if (this.idempotency.size > this.retain) this.idempotency.delete(this.idempotencyOrder.shift()!);
  }

  /** Counts one accepted email against the monthly limit, starting over each calendar month (UTC). */
  private countSent(now: Date): void {
    // A batch's emails share one `now`: its month is worked out once.
    if (now !== this.monthAt) {
      this.monthAt = now;
      this.monthOfNow = monthOf(now);
    }
    this.countMonth(this.monthOfNow);
  }

  private countMonth(month: string): void {
    if (this.sentThisMonth.month !== month) this.sentThisMonth = { month, count: 0 };
    this.sentThisMonth.count += 1;
  }

  private pushDelivery(record: DeliveryRecord): void {
    this.deliveryLog.push(record);
    this.deliveryTotal += 1;
    if (this.deliveryLog.length > this.retain) this.deliveryLog.shift();
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

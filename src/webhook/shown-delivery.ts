import type { ChalkInstance } from 'chalk';
import type { NormalizedEvent } from '../schema/index.js';
import type { ForwardResult } from './forward.js';
import { oneLine } from '../output/one-line.js';

/**
 * How `listen` and `replay` show each delivery: one readable line on a terminal, one NDJSON record
 * when piped. Neither ever includes the token.
 */
export interface ShownDelivery {
  receivedAt: string;
  path: string;
  status: number;
  verified: boolean;
  event?: NormalizedEvent;
  reason?: string;
  forward?: ForwardResult;
  /** Why it was not forwarded although verified (a connection test). */
  note?: string;
}

export function deliveryRecord(d: ShownDelivery): Record<string, unknown> {
  const record: Record<string, unknown> = { receivedAt: d.receivedAt };
  if (d.event) Object.assign(record, { event: d.event.event, createdAt: d.event.createdAt ?? null });
  record.verified = d.verified;
  if (d.status !== 200) Object.assign(record, { status: d.status, path: d.path, reason: d.reason });
  if (d.event) record.data = d.event.data;
  if (d.forward) record.forward = d.forward;
  if (d.note) record.note = d.note;
  return record;
}

/** `c` is the command's palette (output/color.ts), so --no-color and NO_COLOR are honoured. */
export function deliveryLine(d: ShownDelivery, c: ChalkInstance): string {
  const time = c.dim(localTime(d.receivedAt));
  // What arrived over the network (path, event, addresses) is escaped: it must not drive the terminal.
  if (d.status !== 200) return `${time}  ${c.red(`${d.status} ✗`)} ${oneLine(d.reason ?? '')}  ${c.dim(`(${oneLine(d.path)})`)}`;
  const parts = [time, c.bold(oneLine(d.event?.event ?? '?'))];
  const who = d.event ? subject(d.event) : undefined;
  if (who) parts.push(oneLine(who));
  parts.push(c.green('verified ✓'));
  if (d.forward) parts.push(forwardText(d.forward, c));
  if (d.note) parts.push(c.dim(`(${oneLine(d.note)})`));
  return parts.join('  ');
}

function forwardText(f: ForwardResult, c: ChalkInstance): string {
  if (f.error !== undefined && f.status === undefined) return c.red(`→ failed: ${oneLine(f.error)}`);
  const status = f.status ?? 0;
  const text = `→ ${status} (${f.durationMs} ms)`;
  return status >= 200 && status < 300 ? c.green(text) : c.red(text);
}

/** Who the event is about: the contact's address, or the team member who joined. */
function subject(event: NormalizedEvent): string | undefined {
  const data = event.data as { contact?: { email?: unknown }; user?: { email?: unknown; name?: unknown } };
  if (typeof data.contact?.email === 'string') return data.contact.email;
  if (typeof data.user?.email === 'string') return typeof data.user.name === 'string' ? `${data.user.name} <${data.user.email}>` : data.user.email;
  return undefined;
}

/** HH:MM:SS on the developer's clock, as a terminal log line reads best. */
function localTime(iso: string): string {
  const t = new Date(iso);
  return [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

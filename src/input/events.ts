import { usageError } from '../errors.js';
import { EVENT_NAMES, isEventName, type EventName } from '../schema/events.js';

/** `--event` values (repeatable, or comma-separated), upper-cased and checked against the six events. */
export function parseEvents(values: readonly string[] | undefined): EventName[] {
  const names = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim().toUpperCase()).filter(Boolean);
  if (names.length === 0) throw usageError(`give at least one --event (${EVENT_NAMES.join(', ')})`);
  const unknown = names.filter((n) => !isEventName(n));
  if (unknown.length) throw usageError(`unknown event${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; valid: ${EVENT_NAMES.join(', ')}`);
  return [...new Set(names as EventName[])];
}

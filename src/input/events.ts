import { usageError } from '../errors.js';
import { EVENT_NAMES, type EventName } from '../schema/events.js';
import { closest, matchChoice } from './choice.js';

/** `--event` values (repeatable, or comma-separated), in any case, checked against the six events and canonicalised. */
export function parseEvents(values: readonly string[] | undefined): EventName[] {
  const given = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (given.length === 0) throw usageError(`give at least one --event (${EVENT_NAMES.join(', ')})`);
  const unknown = given.filter((n) => matchChoice(n, EVENT_NAMES) === undefined);
  if (unknown.length) {
    const guesses = unknown.map((n) => closest(n, EVENT_NAMES)).flat();
    const guess = guesses.length > 0 ? ` (did you mean ${[...new Set(guesses)].join(' or ')}?)` : '';
    throw usageError(`unknown event${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}${guess}; valid: ${EVENT_NAMES.join(', ')}`);
  }
  return [...new Set(given.map((n) => matchChoice(n, EVENT_NAMES) as EventName))];
}

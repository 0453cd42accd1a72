/** Nouns whose plural is not the singular plus "s". */
const IRREGULAR: Record<string, string> = { entry: 'entries', delivery: 'deliveries', query: 'queries', retry: 'retries', address: 'addresses' };

/** A noun for a number of things: `noun(1, 'entry')` is "entry", `noun(2, 'entry')` "entries". */
export function noun(n: number, singular: string, plural?: string): string {
  return n === 1 ? singular : (plural ?? IRREGULAR[singular] ?? `${singular}s`);
}

/**
 * A number as a person reads it, with thousands separators: "12,000". For every count in a line
 * meant for people; machine output (--json, NDJSON, reports) keeps plain numbers.
 */
export function figure(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * A count as a person writes it: "1 entry", "2,000 emails", "0 keys". The one place every printed
 * count gets its plural, so no message says "1 entries".
 */
export function count(n: number, singular: string, plural?: string): string {
  return `${figure(n)} ${noun(n, singular, plural)}`;
}

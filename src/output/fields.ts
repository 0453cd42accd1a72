import { usageError } from '../errors.js';

/**
 * Field names of the objects mailroom prints (API keys, webhooks, emails, check results, summaries):
 * `--json id` takes `id` as a field list, while `--json wh_123` or `--json emails.ndjson` leave the
 * word to the command. A list with a comma (`--json id,role`) or `--json=id` is always a field list.
 */
const KNOWN_FIELDS = new Set([
  'id', 'displayName', 'role', 'status', 'secretKey', 'createdAt', 'updatedAt', 'workspaceId', 'url', 'events', 'token',
  'messageId', 'to', 'from', 'subject', 'template', 'type', 'groupBy', 'warning', 'idempotencyKey', 'items', 'hasMore', 'startAt',
  'event', 'meaning', 'key', 'value', 'source', 'origin', 'baseUrl', 'apiKey', 'keySource', 'keyOrigin',
]);

const FIELD_LIST = /^[A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)*$/;

/** gh's `--json id,displayName`: the field list taken out of the arguments, `--json` left in place. */
export function takeJsonFields(args: readonly string[]): { args: string[]; fields: string[] | undefined } {
  const out: string[] = [];
  let fields: string[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (arg.startsWith('--json=')) {
      const list = arg.slice('--json='.length);
      if (!FIELD_LIST.test(list)) throw usageError(`--json=${list}: expected field names separated by commas, such as --json id,displayName`);
      fields = list.split(',');
      out.push('--json');
      continue;
    }
    out.push(arg);
    const next = args[i + 1];
    if (arg === '--json' && next !== undefined && FIELD_LIST.test(next) && (next.includes(',') || KNOWN_FIELDS.has(next))) {
      fields = next.split(',');
      i++;
    }
  }
  return { args: out, fields };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `value` with only `fields` kept: of an object, of each item of a list, or of each item of a page
 * (`{ items, hasMore, startAt }`, whose paging state stays). `unknown` lists fields no item has.
 */
export function selectFields(value: unknown, fields: readonly string[]): { value: unknown; unknown: string[]; valid: string[] } {
  const page = isRecord(value) && Array.isArray(value.items);
  const items: unknown[] = page ? (value.items as unknown[]) : Array.isArray(value) ? value : [value];
  const valid = [...new Set(items.filter(isRecord).flatMap((item) => Object.keys(item)))];
  // An empty list has no fields to check a name against.
  const unknown = items.length === 0 ? [] : fields.filter((f) => !valid.includes(f));
  const pick = (item: unknown) => (isRecord(item) ? Object.fromEntries(fields.filter((f) => Object.hasOwn(item, f)).map((f) => [f, item[f]])) : item);
  const picked = items.map(pick);
  return { value: page ? { ...value, items: picked } : Array.isArray(value) ? picked : picked[0], unknown, valid };
}

import { usageError } from '../errors.js';

const FIELD_LIST = /^[A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * gh's `--json id,displayName`: the field list taken out of the arguments, `--json` left in place.
 * `--json id` takes `id` as a field list when it is one of `known` (the field names of the objects
 * mailroom prints), while `--json wh_123` or `--json emails.ndjson` leave the word to the command; a
 * list with a comma (`--json id,role`) or `--json=id` is always a field list. `candidate`: a word
 * after `--json` that could be a field name but was left to the command, so that a command with no
 * room for it can report it as the field name it was meant to be (`check --json nope`).
 */
export function takeJsonFields(args: readonly string[], known: ReadonlySet<string>): { args: string[]; fields: string[] | undefined; candidate?: string } {
  const out: string[] = [];
  let fields: string[] | undefined;
  let candidate: string | undefined;
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
    if (arg === '--json' && next === '') throw usageError('--json: the field list is empty: give field names (--json id,displayName), or --json alone for every field');
    if (arg === '--json' && next !== undefined && FIELD_LIST.test(next)) {
      if (next.includes(',') || known.has(next)) {
        fields = next.split(',');
        i++;
      } else candidate = next;
    }
  }
  return { args: out, fields, ...(candidate === undefined ? {} : { candidate }) };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `value` with only `fields` kept, in the order asked: of an object, or of each item of a list
 * (`{ items, hasMore, ... }`, whose other fields stay). A field an object does not have is left out.
 */
export function selectFields(value: unknown, fields: readonly string[]): { value: unknown } {
  const pick = (item: unknown) => (isRecord(item) ? Object.fromEntries(fields.filter((f) => Object.hasOwn(item, f)).map((f) => [f, item[f]])) : item);
  if (isRecord(value) && Array.isArray(value.items)) return { value: { ...value, items: value.items.map(pick) } };
  return { value: Array.isArray(value) ? value.map(pick) : pick(value) };
}

/**
 * `--jq <expression>` (or `--jq=<expression>`) taken out of the arguments before Commander sees them:
 * it is compiled before the command is even built (src/output/jq.ts), and implies `--json`, which is
 * put in its place. The last one given counts once; a second is refused, as for every option.
 */
export function takeJq(args: readonly string[]): { args: string[]; jq: string | undefined } {
  const out: string[] = [];
  let jq: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    let value: string | undefined;
    if (arg.startsWith('--jq=')) value = arg.slice('--jq='.length);
    else if (arg === '--jq') {
      value = args[i + 1];
      if (value === undefined) throw usageError("option '--jq <expression>' argument missing");
      i++;
    } else {
      out.push(arg);
      continue;
    }
    if (jq !== undefined) throw usageError('--jq was given more than once; give it once');
    if (value.trim() === '') throw usageError('--jq: the expression is empty (to print the JSON whole, use --json)');
    jq = value;
  }
  if (jq !== undefined && !out.slice(0, out.includes('--') ? out.indexOf('--') : undefined).includes('--json')) {
    const end = out.indexOf('--');
    out.splice(end === -1 ? out.length : end, 0, '--json');
  }
  return { args: out, jq };
}

import { isEmailAddress, senderAddress } from './address.js';
import { parseZonedDateTime } from './datetime.js';
import type { EmailRequest } from './email.js';
import { hasNoNul, isHeaderSafe } from './text.js';

/**
 * The batch hot path's check of an email, without zod. It vouches only for what `parseEmailRequest`
 * (email.ts, the one definition of validity) accepts, and then returns exactly what zod would: the
 * fields in schema order, absent ones left out. Anything else, valid or not, gets `undefined` and
 * goes to zod, which also says what is wrong. Loading zod costs more than checking a 20,000-email
 * run, and zod's checks about a tenth of the run's CPU. test/schema/email-quick.test.ts holds the
 * two to the same answers.
 *
 * Input is JSON data, as JSON.parse and the CSV reader make it: objects whose keys are enumerable
 * strings.
 */
export function quickParseEmail(input: Record<string, unknown>): EmailRequest | undefined {
  if (Object.getPrototypeOf(input) !== Object.prototype) return undefined;
  const schema = 'template' in input ? TEMPLATED : RAW;
  for (const key in input) if (!schema.keys.has(key)) return undefined;
  const email: Record<string, unknown> = {};
  for (const { key, required, check } of schema.fields) {
    if (!(key in input)) {
      if (required) return undefined;
      continue;
    }
    const value = input[key];
    const out = value === undefined && !required ? undefined : check(value);
    if (out === INVALID) return undefined;
    email[key] = out;
  }
  return email as EmailRequest;
}

const INVALID = Symbol('invalid');
/** A field's value as zod outputs it, or INVALID when this check cannot vouch for it. */
type Check = (value: unknown) => unknown;
interface Field {
  key: string;
  required: boolean;
  check: Check;
}

// Header fields (common.ts `headerText`) hold no control character; body text (`plainText`) no NUL.
const header = (v: unknown): v is string => typeof v === 'string' && isHeaderSafe(v);
const text: Check = (v) => (typeof v === 'string' && hasNoNul(v) ? v : INVALID);
const nonEmptyText: Check = (v) => (typeof v === 'string' && v !== '' && hasNoNul(v) ? v : INVALID);
const headerString: Check = (v) => (header(v) ? v : INVALID);
const nonEmptyHeader: Check = (v) => (header(v) && v !== '' ? v : INVALID);
const address: Check = (v) => (header(v) && isEmailAddress(v) ? v : INVALID);
const sender: Check = (v) => (header(v) && senderAddress(v) !== undefined ? v : INVALID);
// zod counts code points past 256 UTF-16 units; such a key is left to zod.
const idempotencyKey: Check = (v) => (header(v) && v !== '' && v.length <= 256 ? v : INVALID);

// The same check `zonedTimestamp` makes; the value is kept as written, as zod keeps it.
const timestamp: Check = (v) => (typeof v === 'string' && parseZonedDateTime(v) !== undefined ? v : INVALID);

const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/** `scalarRecord`: the same object when every key and value passes (zod's copy would be equal). */
const scalars: Check = (v) => {
  if (!isJsonObject(v)) return INVALID;
  for (const key in v) {
    const x = v[key];
    if (key === '__proto__' || !isHeaderSafe(key) || !((typeof x === 'string' && hasNoNul(x)) || typeof x === 'boolean' || x === null || (typeof x === 'number' && Number.isFinite(x)))) return INVALID;
  }
  return v;
};

const SETTINGS = ['trackClicks', 'trackOpens'];
/** `emailSettingsSchema`: rebuilt, as zod does, in schema order. */
const settings: Check = (v) => {
  if (!isJsonObject(v)) return INVALID;
  for (const key in v) if (!SETTINGS.includes(key)) return INVALID;
  const out: Record<string, unknown> = {};
  for (const key of SETTINGS) {
    if (!(key in v)) continue;
    const flag = v[key];
    if (flag !== undefined && typeof flag !== 'boolean') return INVALID;
    out[key] = flag;
  }
  return out;
};

const required = (key: string, check: Check): Field => ({ key, required: true, check });
const optional = (key: string, check: Check): Field => ({ key, required: false, check });
const schema = (fields: Field[]) => ({ fields, keys: new Set(fields.map((f) => f.key)) });
const common = [optional('settings', settings), optional('groupBy', nonEmptyHeader), optional('sendAt', timestamp), optional('idempotencyKey', idempotencyKey)];

/** rawEmailSchema's fields, in its order. */
const RAW = schema([
  required('from', sender),
  optional('fromName', headerString),
  required('to', address),
  required('subject', nonEmptyHeader),
  required('html', nonEmptyText),
  optional('text', text),
  optional('previewText', text),
  optional('replyTo', address),
  optional('contactProperties', scalars),
  ...common,
]);

/** templatedEmailSchema's fields, in its order. */
const TEMPLATED = schema([required('template', nonEmptyHeader), required('to', address), optional('variables', scalars), ...common]);

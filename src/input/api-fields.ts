import { usageError } from '../errors.js';
import { setOwn } from '../schema/own-field.js';

/** One `-f key=value` (raw: always a string) or `-F key=value` (typed) of `mailroom api`, in argv order. */
export interface ApiField {
  flag: '-f' | '-F';
  text: string;
}

/**
 * `-F`'s typing, as gh's: `true`, `false` and `null` are those JSON values, an integer or decimal is
 * a number, `@file` is the file's text (`@-`: stdin), anything else a string. `-f` keeps the text.
 */
export function typedValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  // An integer past 2^53 would be sent as another number (99999999999999999999 as 100000000000000000000): it stays text.
  if (/^-?(0|[1-9]\d*)$/.test(raw)) return Number.isSafeInteger(Number(raw)) ? Number(raw) : raw;
  if (/^-?(0|[1-9]\d*)\.\d+$/.test(raw) && Number.isFinite(Number(raw))) return Number(raw);
  return raw;
}

/** `key=value` split at the first `=`, the key checked (`name`, `a[b]`, `tags[]`). */
export function splitField(field: ApiField): { path: string[]; append: boolean; value: string } {
  const eq = field.text.indexOf('=');
  if (eq <= 0) throw usageError(`${field.flag} ${field.text}: expected key=value`);
  const key = field.text.slice(0, eq);
  const m = /^([^[\]]+)((?:\[[^[\]]+\])*)(\[\])?$/.exec(key);
  if (!m) throw usageError(`${field.flag} ${key}: a key is a name, a[b] for a nested object, or a[] to add to a list`);
  const path = [m[1]!, ...[...m[2]!.matchAll(/\[([^[\]]+)\]/g)].map((s) => s[1]!)];
  return { path, append: m[3] !== undefined, value: field.text.slice(eq + 1) };
}

/** Sets `path` in `target` (objects made on the way; `append` adds to a list), refusing a clash. */
export function setField(target: Record<string, unknown>, key: string, path: readonly string[], append: boolean, value: unknown): void {
  let node = target;
  for (const [i, name] of path.entries()) {
    const last = i === path.length - 1;
    // Own entries only: `constructor`, `toString` or `__proto__` are field names here, not Object's.
    const here = Object.hasOwn(node, name) ? node[name] : undefined;
    if (last && append) {
      if (here === undefined) setOwn(node, name, [value]);
      else if (Array.isArray(here)) here.push(value);
      else throw usageError(`${key}: ${path.slice(0, i + 1).join('.')} was given as a single value, now as a list`);
      return;
    }
    if (last) {
      if (here !== undefined) throw usageError(`${key}: ${path.join('.')} is given twice (use ${path[0]}[] to make a list)`);
      setOwn(node, name, value);
      return;
    }
    if (here === undefined) setOwn(node, name, {});
    else if (typeof here !== 'object' || here === null || Array.isArray(here)) throw usageError(`${key}: ${path.slice(0, i + 1).join('.')} is a value, not an object`);
    node = node[name] as Record<string, unknown>;
  }
}

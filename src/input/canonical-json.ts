/**
 * Whether a JSON text is exactly what JSON.stringify makes of its value, known without making it:
 * the batch's running hash of its entries (batch/chunks.ts `entryText`) is over that text, and an
 * NDJSON line written by JSON.stringify, jq -c and most programs already is it. Serialising every
 * entry again was the largest cost of that hash.
 *
 * The text given must be the one `value` was parsed from. Then it is never shorter than `value`'s
 * shortest JSON (`shortestLength`): every character of a string takes at least one character, `"`
 * and `\` two, and whitespace, longer escapes, control characters (always escaped) and a key given
 * twice only add. The shortest JSON of a value has one form, JSON.stringify's, so equal lengths
 * mean that text. The two things of equal length but another form are left to JSON.stringify:
 * numbers (`1e2` and `100`) and keys V8 orders first (`"1"`).
 */
export function isStringifiedForm(text: string, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return shortestLength(value) === text.length;
  // An entry's own fields, mostly strings, in a loop of their own: the recursion below is only for
  // nested values, so that V8 optimises a small function for the common entry (a large recursive
  // one cost more to compile than it saved).
  let n = 1;
  for (const key in value) {
    const first = key.charCodeAt(0);
    if (first >= 48 && first <= 57) return false;
    const field = (value as Record<string, unknown>)[key];
    const l = typeof field === 'string' ? stringLength(field) : shortestLength(field);
    if (l < 0) return false;
    n += stringLength(key) + 2 + l;
  }
  return (n === 1 ? 2 : n) === text.length;
}

/** The length of `value`'s shortest JSON, counting a control character as one; -1 for a number or a key that begins with a digit. */
function shortestLength(value: unknown): number {
  if (typeof value === 'string') return stringLength(value);
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (typeof value !== 'object') return -1;
  if (value === null) return 4;
  if (Array.isArray(value)) {
    let n = value.length === 0 ? 2 : value.length + 1;
    for (const item of value) {
      const l = shortestLength(item);
      if (l < 0) return -1;
      n += l;
    }
    return n;
  }
  let n = 1;
  for (const key in value) {
    const first = key.charCodeAt(0);
    if (first >= 48 && first <= 57) return -1;
    const l = shortestLength((value as Record<string, unknown>)[key]);
    if (l < 0) return -1;
    n += stringLength(key) + 2 + l;
  }
  return n === 1 ? 2 : n;
}

/** A string's length in JSON with `"` and `\` escaped and every other character as it is. */
function stringLength(s: string): number {
  let n = s.length + 2;
  for (let i = s.indexOf('"'); i !== -1; i = s.indexOf('"', i + 1)) n += 1;
  for (let i = s.indexOf('\\'); i !== -1; i = s.indexOf('\\', i + 1)) n += 1;
  return n;
}

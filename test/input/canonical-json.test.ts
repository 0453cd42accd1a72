import { describe, expect, it } from 'vitest';
import { isStringifiedForm } from '../../src/input/canonical-json.js';

/** Deterministic: a failure names its seed and case. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'Z', ' ', 'é', '😀', '"', '\\', '/', '\n', '\u0001', '\u2028', '<b>', '1', '{', '}', ':', ',', '\ud800'];
const KEYS = ['from', 'to', 'subject', 'html', 'a', '', '1', '01', '_index', '__proto__', 'toJSON', 'k"q', 'é'];

function value(r: () => number, depth = 0): unknown {
  const pick = r();
  if (depth > 2 || pick < 0.45) {
    let s = '';
    for (let i = Math.floor(r() * 5); i > 0; i--) s += PIECES[Math.floor(r() * PIECES.length)];
    return s;
  }
  if (pick < 0.52) return r() < 0.5;
  if (pick < 0.56) return null;
  if (pick < 0.62) return [0, 1, 100, -3, 1.5, 1e21][Math.floor(r() * 6)];
  if (pick < 0.75) return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 4); i > 0; i--) Object.defineProperty(o, KEYS[Math.floor(r() * KEYS.length)]!, { value: value(r, depth + 1), enumerable: true, writable: true, configurable: true });
  return o;
}

/** Other texts of (about) the same data: spaces, escapes JSON.stringify would not write, a key given twice, numbers in other forms. */
function variants(text: string): string[] {
  return [
    text,
    text.replace(/:/, ' : '),
    ` ${text}`.trim() === text ? `${text} ` : text,
    text.replace(/,/, ', '),
    text.replace(/"a/, '"\\u0061'),
    text.replace(/\//, '\\/'),
    text.replace(/"(\w+)":("[^"\\]*")/, '"$1":$2,"$1":$2'),
    text.replace(/"(\w+)":("[^"\\]*")/, '"$1":"other","$1":$2'),
    text.replace(/\b100\b/, '1e2'),
    text.replace(/\b1\b/, '1.0'),
    text.replace(/é/, '\\u00e9'),
    text.replace(/\\n/, '\\u000a'),
  ];
}

describe('isStringifiedForm', () => {
  it('says yes only for the text JSON.stringify makes of the value parsed from it: 5,000 random values, each in a dozen forms', () => {
    const r = random(20261126);
    let yes = 0;
    for (let n = 0; n < 5_000; n++) {
      const v = value(r);
      for (const text of variants(JSON.stringify(v))) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          continue;
        }
        if (isStringifiedForm(text, parsed)) {
          yes += 1;
          expect(text, `case ${n}`).toBe(JSON.stringify(parsed));
        }
      }
    }
    // The fast path is taken, not only refused.
    expect(yes).toBeGreaterThan(5_000);
  });

  it('says yes for an email entry as JSON.stringify, jq -c and most programs write it', () => {
    const line = '{"from":"Ops <ops@example.com>","to":"ann@customer.test","subject":"Your order ✓","html":"<p>Hi</p>","settings":{"trackOpens":true},"variables":{"name":"Ann","vip":false,"note":null},"tags":["a","b"],"_index":"x"}';
    expect(isStringifiedForm(line, JSON.parse(line))).toBe(true);
    const html = JSON.stringify({ to: 'a@b.test', html: '<a href="https://example.com/t/1" class=\'x\'>C:\\path</a>' });
    expect(isStringifiedForm(html, JSON.parse(html))).toBe(true);
    expect(isStringifiedForm('{}', {})).toBe(true);
    expect(isStringifiedForm('[]', [])).toBe(true);
  });

  it('says no to a text that is not JSON.stringify\'s, and leaves a control character or a number to it', () => {
    const no = (text: string) => expect(isStringifiedForm(text, JSON.parse(text)), text).toBe(false);
    no('{"a":"x","a":"y"}');
    no('{"a":"xy","a":"y"}');
    no('{"a": "b"}');
    no(' {"a":"b"}');
    no('{"a":"\\u0041"}');
    no('{"a":"\\/"}');
    no('{"n":1e2}');
    no('{"b":"x","1":"y"}');
    no('{"1":"y","b":"x"}');
    no('["a", "b"]');
    no('{"a":"\\u0022"}');
    no('{"a":"\\u00e9"}');
    no('{"a":"\\ud83d\\ude00"}');
    // JSON.stringify's own text, but not known by its length: serialised again (only slower).
    no('{"a":"line\\nbreak"}');
    no('{"n":100}');
  });
});

import { usageError } from '../errors.js';

/** Where JSON.parse stopped and why, in mailroom's words (V8's messages quote the input, newlines and all). */
export interface JsonSyntaxError {
  /** 0-based index into the text. */
  offset: number;
  line: number;
  column: number;
  problem: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

function describe(ch: string | undefined): string {
  if (ch === undefined) return 'end of input';
  const code = ch.codePointAt(0)!;
  return code < 0x20 || code === 0x7f || code === 0xfeff ? `character U+${code.toString(16).toUpperCase().padStart(4, '0')}` : `"${ch}"`;
}

/**
 * Finds the first syntax error of text that JSON.parse refused. Iterative, so deeply nested input
 * cannot overflow the stack; it checks only syntax (JSON.parse has already built nothing).
 */
export function locateJsonError(text: string): JsonSyntaxError {
  const n = text.length;
  const stack: string[] = [];
  let i = 0;
  let state: 'value' | 'key' | 'after' = 'value';
  const at = (offset: number, problem: string): JsonSyntaxError => {
    const before = text.slice(0, offset);
    const nl = before.lastIndexOf('\n');
    let line = 1;
    for (let k = before.indexOf('\n'); k !== -1; k = before.indexOf('\n', k + 1)) line += 1;
    return { offset, line, column: offset - nl, problem };
  };
  const unexpected = () => at(i, i >= n ? 'unexpected end of input' : `unexpected ${describe(text[i])}`);
  /** Scans the string starting at i; returns an error or moves i past its closing quote. */
  const string = (): JsonSyntaxError | undefined => {
    i += 1;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i += 1;
        return undefined;
      }
      if (c < 0x20) return at(i, `${describe(text[i])} inside a string (escape it)`);
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return at(i, 'bad \\u escape in a string');
          i += 6;
          continue;
        }
        if (e === undefined || !ESCAPES.has(e)) return at(i, `bad escape ${e === undefined ? '\\' : `"\\${e}"`} in a string`);
        i += 2;
        continue;
      }
      i += 1;
    }
    return at(i, 'unterminated string');
  };
  for (;;) {
    while (i < n && WS.has(text.charCodeAt(i))) i += 1;
    if (state === 'value') {
      const ch = text[i];
      if (ch === '{' || ch === '[') {
        stack.push(ch);
        i += 1;
        while (i < n && WS.has(text.charCodeAt(i))) i += 1;
        if (text[i] === (ch === '{' ? '}' : ']')) {
          stack.pop();
          i += 1;
          state = 'after';
        } else state = ch === '{' ? 'key' : 'value';
        continue;
      }
      if (ch === '"') {
        const err = string();
        if (err) return err;
        state = 'after';
        continue;
      }
      const literal = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
      if (literal) {
        i += literal.length;
        state = 'after';
        continue;
      }
      NUMBER.lastIndex = i;
      if (ch !== undefined && NUMBER.test(text)) {
        i = NUMBER.lastIndex;
        state = 'after';
        continue;
      }
      return unexpected();
    }
    if (state === 'key') {
      if (text[i] !== '"') return i >= n ? unexpected() : at(i, `expected a property name in double quotes, found ${describe(text[i])}`);
      const err = string();
      if (err) return err;
      while (i < n && WS.has(text.charCodeAt(i))) i += 1;
      if (text[i] !== ':') return i >= n ? unexpected() : at(i, `expected ":" after a property name, found ${describe(text[i])}`);
      i += 1;
      state = 'value';
      continue;
    }
    const top = stack[stack.length - 1];
    if (top === undefined) return i < n ? at(i, `unexpected ${describe(text[i])} after the end of the JSON value`) : at(i, 'not valid JSON');
    const close = top === '{' ? '}' : ']';
    if (text[i] === ',') {
      i += 1;
      state = top === '{' ? 'key' : 'value';
    } else if (text[i] === close) {
      i += 1;
      stack.pop();
    } else return i >= n ? unexpected() : at(i, `expected "," or "${close}", found ${describe(text[i])}`);
  }
}

/** JSON.parse, or a usage error naming `where`, the line and column and what is wrong there. */
export function parseJsonText(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const e = locateJsonError(text);
    throw usageError(`${where}: not valid JSON at line ${e.line}, column ${e.column}: ${e.problem}`);
  }
}

import { describe, expect, it } from 'vitest';
import { locateJsonError, parseJsonText } from '../../src/input/json-text.js';

describe('locateJsonError', () => {
  it.each([
    ['{oops', 1, 2, 'expected a property name in double quotes, found "o"'],
    ['{"to": x}', 1, 8, 'unexpected "x"'],
    ['{"a": 1,\n  "b": }', 2, 8, 'unexpected "}"'],
    ['[1, 2', 1, 6, 'unexpected end of input'],
    ['', 1, 1, 'unexpected end of input'],
    ['{"a": 1} x', 1, 10, 'unexpected "x" after the end of the JSON value'],
    ['"abc', 1, 5, 'unterminated string'],
    ['["a\tb"]', 1, 4, 'character U+0009 inside a string (escape it)'],
    ['["\\q"]', 1, 3, 'bad escape "\\q" in a string'],
    ['[1,]', 1, 4, 'unexpected "]"'],
    ['\uFEFF{}', 1, 1, 'unexpected character U+FEFF'],
    ['{"a" 1}', 1, 6, 'expected ":" after a property name, found "1"'],
  ])('%j → line %i, column %i: %s', (text, line, column, problem) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(locateJsonError(text)).toMatchObject({ line, column, problem });
  });

  it('survives nesting deeper than the stack', () => {
    const deep = `${'['.repeat(200_000)}x`;
    expect(locateJsonError(deep)).toMatchObject({ line: 1, column: 200_001, problem: 'unexpected "x"' });
  });

  it('parseJsonText names where the text came from', () => {
    expect(parseJsonText('{"a":1}', '--vars')).toEqual({ a: 1 });
    expect(() => parseJsonText('{\n"a":}', '--vars-file v.json')).toThrow('--vars-file v.json: not valid JSON at line 2, column 5: unexpected "}"');
  });
});

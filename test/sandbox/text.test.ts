import { describe, expect, test } from 'vitest';
import { MAX_ELEMENTS, parseCut, textFromHtml } from '../../src/sandbox/text.js';
import { REACT_EMAIL_LIKE, REACT_EMAIL_LIKE_TEXT } from '../fixtures/react-email-like.js';
import { escapeHtml, renderTemplate } from '../../src/sandbox/templates.js';

describe('textFromHtml', () => {
  test('a React-email-like document: no DOCTYPE, head, style or hidden preview; entities decoded; table cells on their own lines', () => {
    expect(textFromHtml(REACT_EMAIL_LIKE)).toBe(REACT_EMAIL_LIKE_TEXT);
  });

  test('breaks become lines; a link whose text is its target is not repeated', () => {
    expect(textFromHtml('<p>First line<br>second line</p><p><a href="https://y.test">https://y.test</a></p>')).toBe('First line\nsecond line\n\nhttps://y.test');
  });

  test('scripts and comments vanish; plain text passes through, whitespace collapsed', () => {
    expect(textFromHtml('<!-- hidden --><script>alert(1)</script><p>ok</p>')).toBe('ok');
    expect(textFromHtml('  just   text\n\n\n\nand more  ')).toBe('just text and more');
  });
});

describe('renderTemplate', () => {
  const template = { from: 'hello@example.com', subject: 'Hi {{ name }} & {{missing}}', html: '<p>{{name}} owes {{amount}}</p>' };

  test('substitutes variables, escaping them in html only; missing ones render empty', () => {
    expect(renderTemplate(template, { name: '<Bo>', amount: 5 })).toEqual({
      from: 'hello@example.com',
      subject: 'Hi <Bo> & ',
      html: '<p>&lt;Bo&gt; owes 5</p>',
    });
  });

  test('null and absent variables, and no variables at all', () => {
    expect(renderTemplate(template, { name: null }).html).toBe('<p> owes </p>');
    expect(renderTemplate({ subject: 's', html: '{{x}}' }).html).toBe('');
  });

  test('escapeHtml covers the five characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});

describe('textFromHtml on broken HTML', () => {
  test('an unclosed comment, script or tag drops the rest; a stray < stays text', () => {
    expect(textFromHtml('<p>kept</p><!-- never closed <p>gone</p>')).toBe('kept');
    expect(textFromHtml('<p>kept</p><script>gone')).toBe('kept');
    expect(textFromHtml('<p>kept</p><a href="x"')).toBe('kept');
    expect(textFromHtml('1 < 2 and 3 <> 4')).toBe('1 < 2 and 3 <> 4');
  });

  test('deep nesting is cut, not parsed for minutes (unchecked, 170,000 open <div>s took 60 s: the test would time out)', () => {
    expect(textFromHtml(`${'<div>'.repeat(170_000)}deep`)).toBe('...');
    // End tags the parser ignores (stray, inside an attribute, inside a script) close nothing.
    expect(textFromHtml(`${'<div></i>'.repeat(100_000)}end`)).toBe('...');
    expect(textFromHtml(`${'<div title="x> </div> ">'.repeat(40_000)}end`)).toBe('...');
    expect(textFromHtml(`${'<div><script></div></script>'.repeat(30_000)}end`)).toBe('...');
  });

  test('past MAX_ELEMENTS the text stops with "..."; up to it, nothing is cut', () => {
    expect(textFromHtml(`${'<p>x</p>'.repeat(MAX_ELEMENTS - 1)}<p>end</p>`).endsWith('x\n\nend')).toBe(true);
    const cut = textFromHtml(`${'<p>x</p>'.repeat(MAX_ELEMENTS)}<p>end</p>`);
    expect(cut.endsWith('x\n...')).toBe(true);
    expect(cut.split('x').length - 1).toBe(MAX_ELEMENTS);
  });

  test('one tag with many attributes and many unclosed comments convert in one pass', () => {
    expect(textFromHtml('<a '.repeat(300_000))).toBe('');
    expect(textFromHtml(`x${'<!--'.repeat(250_000)}`)).toBe('x');
  });
});

describe('parseCut', () => {
  test('an ordinary email is kept whole; the cut falls at the start of the tag that crossed a limit', () => {
    expect(parseCut(REACT_EMAIL_LIKE)).toBeUndefined();
    const html = '<div><div><div><p>x</p></div></div></div>';
    // Depths 1+2+3+4 at the start tags: the fourth start tag crosses a budget of 9.
    expect(parseCut(html, 9)).toBe(html.indexOf('<p>'));
    expect(parseCut(html, 1_000, 2)).toBe(html.indexOf('<div>', 10));
  });
});

import { describe, expect, test } from 'vitest';
import { textFromHtml } from '../../src/sandbox/text.js';
import { escapeHtml, renderTemplate } from '../../src/sandbox/templates.js';

describe('textFromHtml', () => {
  test('blocks become paragraphs, breaks become lines, list items dashes', () => {
    expect(textFromHtml('<h1>Hello</h1><p>First line<br>second line</p><ul><li>one</li><li>two</li></ul>')).toBe(
      'Hello\n\nFirst line\nsecond line\n\n- one\n- two',
    );
  });

  test('links keep their target; mailto and same-text links do not repeat it', () => {
    expect(textFromHtml('<p><a href="https://x.test/t">Track</a> or <a href="mailto:a@b.test">mail us</a> <a href="https://y.test">https://y.test</a></p>')).toBe(
      'Track (https://x.test/t) or mail us https://y.test',
    );
  });

  test('scripts, styles, head and comments vanish; entities decode', () => {
    expect(textFromHtml('<head><title>T</title><style>p{}</style></head><!-- hidden --><script>alert(1)</script><p>5 &lt; 6 &amp; &#x263A; &#9731;&nbsp;ok</p>')).toBe(
      '5 < 6 & ☺ ☃ ok',
    );
  });

  test('plain text passes through, whitespace collapsed', () => {
    expect(textFromHtml('  just   text\n\n\n\nand more  ')).toBe('just text\n\nand more');
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

  test('many unclosed tags and comments convert in one pass (a quadratic scan would time the test out)', () => {
    expect(textFromHtml(`${'<a '.repeat(300_000)}`)).toBe('');
    expect(textFromHtml(`x${'<!--'.repeat(250_000)}`)).toBe('x');
    expect(textFromHtml(`${'<a href="u">'.repeat(80_000)}end</a>`)).toBe('end (u)');
    expect(textFromHtml(`<a ${'href="'.repeat(150_000)}>x</a>`)).toBe('x (href=)');
  });
});

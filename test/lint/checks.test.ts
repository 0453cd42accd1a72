import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkEmail, compareText } from '../../src/lint/checks.js';
import { fillTemplate } from '../../src/lint/inputs.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/lint/${name}`, import.meta.url), 'utf8');
const ids = (html: string, extra: Record<string, string> = {}) => checkEmail({ html, ...extra }).findings.map((f) => f.check);

describe('lint checks', () => {
  it('the clean email trips none', () => {
    expect(checkEmail({ html: fixture('clean.html'), text: fixture('clean.txt'), subject: 'Welcome' }).findings).toEqual([]);
  });

  it('the broken email trips each check once where it is, with severity and hint', () => {
    const { findings } = checkEmail({ html: fixture('broken.html'), text: fixture('broken.txt') });
    expect(findings.map((f) => `${f.severity} ${f.check} ${f.line ?? '-'}:${f.column ?? '-'}`).sort()).toEqual(
      [
        'error placeholder-unresolved 3:11',
        'error link-unsafe-scheme 5:1',
        'warning link-http 6:1',
        'warning link-empty 7:1',
        'warning link-empty 8:1',
        'error link-relative 9:1',
        'warning image-no-alt 10:1',
        'warning image-no-size 10:1',
        'warning image-http 10:1',
        'error image-relative 11:1',
        'warning size-data-uri 12:11',
        'warning text-mismatch -:-',
        'warning head-no-title -:-',
        'info head-no-preheader -:-',
      ].sort(),
    );
    for (const f of findings) expect(f.hint.length).toBeGreaterThan(20);
  });

  it('size: over 102 KB is clipped (error), over 90 KB close (warning), under neither', () => {
    const page = (kb: number) => `<html><head><title>t</title></head><body><p>${'x'.repeat(kb * 1024)}</p></body></html>`;
    expect(ids(page(103))).toContain('size-clipped');
    expect(ids(page(95))).toContain('size-near-clip');
    expect(ids(page(95))).not.toContain('size-clipped');
    expect(ids(page(80)).filter((id) => id.startsWith('size-'))).toEqual([]);
  });

  it('a scheme split by a newline is still javascript:, an entity-encoded one too (the parser decodes it)', () => {
    expect(ids('<a href="java\nscript:alert(1)">x</a>')).toContain('link-unsafe-scheme');
    expect(ids('<a href="&#106;avascript:alert(1)">x</a>')).toContain('link-unsafe-scheme');
    expect(ids('<a href="data:text/html,hi">x</a>')).toContain('link-unsafe-scheme');
  });

  it('links that are fine: https, mailto, tel, in-page anchors, and <a> without href', () => {
    const html = '<a href="https://e.com">a</a><a href="mailto:x@e.com">b</a><a href="tel:+1">c</a><a href="#top">d</a><a name="top">e</a><a>f</a>';
    expect(ids(html).filter((id) => id.startsWith('link-'))).toEqual([]);
  });

  it('protocol-relative URLs cannot resolve in an email', () => {
    expect(ids('<a href="//e.com/x">x</a><img src="//e.com/i.png" alt="" width="1" height="1">')).toEqual(expect.arrayContaining(['link-relative', 'image-relative']));
  });

  it('image dimensions may come from CSS; alt="" counts as given', () => {
    expect(ids('<img src="https://e.com/i.png" alt="" style="width:10px; height: 20px">').filter((id) => id.startsWith('image-'))).toEqual([]);
    expect(ids('<img src="https://e.com/i.png" alt="" width="10">')).toContain('image-no-size');
  });

  it('placeholders in the subject, previewText, fields and text part; each distinct one once, counted', () => {
    const { findings } = checkEmail({ html: '<p>{{a}} and {{a}} and {% if x %}</p>', subject: 'Hi *|FNAME|*', previewText: '{{{raw}}}', text: 'Hello {{ a }}', fields: { sendAt: '{{sendAt}}' } });
    expect(findings.filter((f) => f.check === 'placeholder-unresolved').map((f) => f.message)).toEqual([
      'the subject holds *|FNAME|* unresolved',
      'previewText holds {{{raw}}} unresolved',
      'sendAt holds {{sendAt}} unresolved',
      'the HTML holds {{a}} unresolved (2 times)',
      'the HTML holds {% if x %} unresolved',
      'the text part holds {{ a }} unresolved',
    ]);
  });

  it('a preheader is a hidden element before the visible text (or previewText); a title must not be empty', () => {
    const body = '<p>Visible words come first here</p>';
    expect(ids(`<title>t</title><body><div style="display:none">Preview</div>${body}</body>`)).not.toContain('head-no-preheader');
    expect(ids(`<title>t</title><body><span class="preheader" style="color:red">Preview</span>${body}</body>`)).not.toContain('head-no-preheader');
    expect(ids(`<title>t</title><body>${body}<div style="display:none">late</div></body>`)).toContain('head-no-preheader');
    expect(ids(`<title>t</title><body>${body}</body>`, { previewText: 'Preview' })).not.toContain('head-no-preheader');
    expect(checkEmail({ html: `<title> </title>${body}` }).findings.find((f) => f.check === 'head-no-title')?.message).toBe('the <title> is empty');
  });

  it('text part: missing is info, empty or unrelated is a mismatch, a close one is not', () => {
    const html = '<title>t</title><p>Your invoice for March is ready to download from your account page</p>';
    expect(ids(html)).toContain('text-missing');
    expect(compareText('Your invoice for March is ready to download', 'Your invoice for March is ready. Download: https://e.com')).toBeUndefined();
    expect(compareText('Your invoice for March is ready to download', '   ')).toBe('the plain-text part is empty');
    expect(compareText('Your invoice for March is ready to download', 'Completely different gardening advice about tomatoes')).toMatch(/shares 0% of the HTML's words/);
  });

  it('templates: variables filled (escaped, nested by dotted name), missing ones listed', () => {
    expect(fillTemplate('<p>{{ name }} {{user.plan}} {{missing}} {{x}}</p>', { name: '<Ada>', user: { plan: 'pro' }, x: null })).toEqual({ html: '<p>&#60;Ada&#62; pro  </p>', missing: ['missing', 'x'] });
  });
});

import { describe, expect, it } from 'vitest';
import { readCsvItems } from '../../src/input/csv.js';
import { chunksOf, collect } from './readers-helpers.js';

describe('CSV reader', () => {
  it('maps the header to fields, var.* to variables, prop.* to contactProperties, settings.* to booleans', async () => {
    const text = [
      '\uFEFFto,template,var.name,var.plan,prop.company,settings.trackOpens',
      'a@example.com,welcome,Ada,pro,Acme,false',
      'b@example.com,welcome,"Smith, Bob",,,yes',
      '',
      'c@example.com,welcome,"multi',
      'line",,,',
    ].join('\n');
    for (const size of [3, text.length]) {
      const items = await collect(readCsvItems(chunksOf(text, size)));
      expect(items.map((i) => i.value)).toEqual([
        { to: 'a@example.com', template: 'welcome', variables: { name: 'Ada', plan: 'pro' }, contactProperties: { company: 'Acme' }, settings: { trackOpens: false } },
        { to: 'b@example.com', template: 'welcome', variables: { name: 'Smith, Bob' }, settings: { trackOpens: true } },
        { to: 'c@example.com', template: 'welcome', variables: { name: 'multi\nline' } },
      ]);
      // The line a row begins on, as the JSON reader gives an element's (a quoted line break inside).
      expect(items.map((i) => i.line)).toEqual([2, 3, 5]);
    }
  });

  it('reports a row with the wrong number of fields, and a bad boolean, on their own', async () => {
    const items = await collect(readCsvItems(chunksOf('to,subject,settings.trackClicks\na@example.com,Hi,true\nb@example.com\nc@example.com,Hi,maybe\n', 7)));
    expect(items[0]!.value).toEqual({ to: 'a@example.com', subject: 'Hi', settings: { trackClicks: true } });
    expect(items[1]).toMatchObject({ line: 3, error: '1 fields where the header has 3' });
    expect(items[2]).toMatchObject({ line: 4, error: expect.stringMatching(/settings.trackClicks: "maybe" is not true or false/) });
  });

  it('gives CRLF files with quoted line breaks the right line numbers: where each row begins', async () => {
    const text = 'to,html\r\na@example.com,"x\r\ny"\r\n\r\nb@example.com,z\r\nc@example.com,"p\r\nq\r\nr"\r\nd@example.com,w\r\n';
    for (const size of [4, text.length]) {
      const items = await collect(readCsvItems(chunksOf(text, size)));
      expect(items.map((i) => i.line)).toEqual([2, 5, 6, 9]);
    }
  });

  it('fails with one line on a broken quote or a duplicate column', async () => {
    await expect(collect(readCsvItems(chunksOf('to,subject\n"a@example.com,Hi\n', 5)))).rejects.toThrow(/^line 2, field 1 \("to"\): not valid CSV: a quoted field is never closed$/);
    await expect(collect(readCsvItems(chunksOf('to,subject\na@example.com,x"y"\n', 5)))).rejects.toThrow(/^line 2, field 2 \("subject"\): not valid CSV: a quote inside an unquoted field/);
    await expect(collect(readCsvItems(chunksOf('to,to\na,b\n', 5)))).rejects.toThrow(/column "to" appears twice/);
  });
});

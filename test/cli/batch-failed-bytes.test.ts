import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { batchWorld, type BatchWorld } from '../helpers/batch.js';

/**
 * `--failed` holds every failed entry byte for byte as it was read, in the input's format, so that
 * fixing the file and sending it again with the same flags sends exactly what failed
 * (docs/batch.md, "Reports and failed entries").
 */
let w: BatchWorld;
batchWorld('mailroom-failed-bytes-', (world) => (w = world));

const file = (name: string, text: string) => {
  const path = join(w.dir, name);
  writeFileSync(path, text);
  return path;
};
const batch = (args: string[]) => runInProcess(['batch', ...args, '--from', 'ops@example.com', '--subject', 'Hi', '--json'], { env: w.env, cwd: w.dir });
const caught = async () => (await w.sandbox.emails()).map((e) => e.to).sort();

describe('batch --failed: each failed entry as it was read', () => {
  it('NDJSON: a line that is not JSON, an invalid entry and one the API refused, CRLF and all; fixed, the file sends just those', async () => {
    const lines = [
      '{"to":"a@example.com","html":"<p>a</p>"}',
      '{"to": "b@example.com", "html": "<p>b ✓</p>"',
      '  {"to":"not-an-address","html":"<p>c</p>"}  ',
      '{"to":"d@example.com","html":"<p>d</p>"}',
      '{"to":"e@example.com","from":"x@unverified.test","html":"<p>e</p>"}',
    ];
    const input = file('in.ndjson', `${lines.join('\r\n')}\r\n`);
    const failed = join(w.dir, 'failed.ndjson');
    const r = await batch([input, '--failed', failed]);
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stdout)).toMatchObject({ total: 5, sent: 2, failed: 3, invalid: 2 });
    expect(readFileSync(failed, 'utf8')).toBe(`${lines[1]}\r\n${lines[2]}\r\n${lines[4]}\r\n`);

    const fixed = readFileSync(failed, 'utf8').replace('"<p>b ✓</p>"', '"<p>b ✓</p>"}').replace('not-an-address', 'c@example.com').replace('x@unverified.test', 'ops@example.com');
    const again = await batch([file('fixed.ndjson', fixed)]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ total: 3, sent: 3, failed: 0 });
    expect(await caught()).toEqual(['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'e@example.com']);
  });

  it('CSV: the header row, then the failed rows as read (a quoted cell over two lines included)', async () => {
    const rows = ['to,html', 'a@example.com,<p>a</p>', 'not-an-address,"<p>two', 'lines</p>"', 'c@example.com,<p>c</p>,one too many', 'd@example.com,<p>d</p>'];
    const input = file('in.csv', `${rows.join('\n')}\n`);
    const failed = join(w.dir, 'failed.csv');
    const r = await batch([input, '--failed', failed]);
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stdout)).toMatchObject({ total: 4, sent: 2, failed: 2, invalid: 2 });
    expect(readFileSync(failed, 'utf8')).toBe(`to,html\nnot-an-address,"<p>two\nlines</p>"\nc@example.com,<p>c</p>,one too many\n`);

    const fixed = readFileSync(failed, 'utf8').replace('not-an-address', 'b@example.com').replace(',one too many', '');
    const again = await batch([file('fixed.csv', fixed)]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ total: 2, sent: 2 });
    expect(await caught()).toEqual(['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com']);
  });

  it('JSON: the failed elements as read (one over several lines), in an array', async () => {
    const refused = '{\n    "to": "b@example.com",\n    "from": "x@unverified.test",\n    "html": "<p>b</p>"\n  }';
    const text = `[\n  {"to": "a@example.com", "html": "<p>a</p>"},\n  ${refused},\n  {"to": 42}\n]\n`;
    const input = file('in.json', text);
    const failed = join(w.dir, 'failed.json');
    const r = await batch([input, '--failed', failed]);
    expect(r.code).toBe(7);
    expect(readFileSync(failed, 'utf8')).toBe(`[\n{"to": 42},\n${refused}\n]\n`);
    expect(JSON.parse(readFileSync(failed, 'utf8'))).toHaveLength(2);
  });

  it('a resume writes the same bytes again, the refused entry taken from the journal', async () => {
    const lines = ['{"to":"a@example.com","html":"<p>a</p>"}', '{"to":"b@example.com","from":"x@unverified.test","html":"<p>b</p>"}', '{oops'];
    const input = file('resume.ndjson', `${lines.join('\n')}\n`);
    const failed = join(w.dir, 'resumed-failed.ndjson');
    const journal = join(w.dir, 'run.journal');
    expect((await batch([input, '--failed', failed, '--resume', journal])).code).toBe(7);
    const first = readFileSync(failed, 'utf8');
    expect(first.split('\n').sort()).toEqual(['', lines[1], lines[2]].sort());
    const again = await batch([input, '--failed', failed, '--resume', journal]);
    expect(again.code).toBe(7);
    expect(readFileSync(failed, 'utf8')).toBe(`${lines[1]}\n${lines[2]}\n`);
    expect(await caught()).toEqual(['a@example.com']);
  });
});

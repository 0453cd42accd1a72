import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

// lint is the CI gate before send and batch: an entry they refuse must fail lint, in their words.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-lint-parser-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const inDir = (args: string[], opts: Parameters<typeof runInProcess>[1] = {}) => runInProcess(args, { cwd: dir, env: { MAILROOM_API_KEY: 'sk_test_lintparser0000000000000000' }, ...opts });
interface Report {
  results: Array<{ input: string; line?: number; entries?: number[]; findings: Array<{ check: string; severity: string; message: string }> }>;
}
const invalid = (stdout: string) =>
  (JSON.parse(stdout) as Report).results.flatMap((r) => r.findings.filter((f) => f.check === 'entry-invalid').map((f) => [r.input, f.severity, f.message]));

const html = '<title>t</title><div style="display:none">pre</div><p>Hello there</p>';
const good = { from: 'a@example.com', to: 'b@example.com', subject: 'Hi', html, text: 'Hello there' };
// Each refused by send --file and by batch: an unknown field, a misspelt one, a wrong type, a bad address.
const refused: Array<[string, Record<string, unknown>]> = [
  ['an unknown field', { ...good, tracking: true }],
  ['a misspelt field', { ...good, replyto: 'c@example.com' }],
  ['a wrong type', { ...good, settings: { trackClicks: 'yes' } }],
  ['an unknown field of a templated email', { template: 'welcome', to: 'b@example.com', variables: {}, subjet: 'x' }],
];

describe('lint judges an entry with the parser send and batch use', () => {
  for (const [what, entry] of refused) {
    it(`--file with ${what}: send refuses it, lint fails with send's words`, async () => {
      writeFileSync(join(dir, 'entry.json'), JSON.stringify(entry));
      const send = await inDir(['send', '--file', 'entry.json', '--dry-run']);
      expect(send.code).toBe(2);
      const sendLine = send.stderr.split('\n')[0]!.replace(/^mailroom: /, '');
      for (const [args, input] of [
        [['--file', 'entry.json'], { input: undefined, label: 'entry.json' }],
        [['--file', '-'], { input: JSON.stringify(entry), label: 'stdin' }],
      ] as const) {
        const r = await inDir(['lint', ...args, '--json'], input.input === undefined ? {} : { input: input.input });
        expect(r.code).toBe(10);
        expect(invalid(r.stdout)).toEqual([[input.label, 'error', sendLine]]);
      }
    });

    it(`--batch with ${what}: batch refuses the entry, lint fails it with batch's words (file and stdin)`, async () => {
      const lines = [good, entry].map((l) => JSON.stringify(l)).join('\n') + '\n';
      writeFileSync(join(dir, 'entries.ndjson'), lines);
      const batch = await inDir(['batch', 'entries.ndjson', '--dry-run', '--json']);
      expect(batch.code).not.toBe(0);
      const batchError = (JSON.parse(batch.stdout) as { errors: Array<{ index: number; error: string }> }).errors;
      // Both count entries from 0: the second line is entry 1 for each.
      expect(batchError.map((e) => e.index)).toEqual([1]);
      for (const [args, input, label] of [
        [['--batch', 'entries.ndjson'], undefined, 'entries.ndjson entry 1'],
        [['--batch', '-'], lines, 'stdin entry 1'],
      ] as const) {
        const r = await inDir(['lint', ...args, '--json'], input === undefined ? {} : { input });
        expect(r.code).toBe(10);
        expect(invalid(r.stdout)).toEqual([[label, 'error', batchError[0]!.error]]);
      }
    });
  }

  it('a valid entry passes both: lint reports no entry-invalid (file, batch, CSV)', async () => {
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(good));
    expect((await inDir(['send', '--file', 'ok.json', '--dry-run'])).code).toBe(0);
    const r = await inDir(['lint', '--file', 'ok.json', '--json']);
    expect(invalid(r.stdout)).toEqual([]);
    writeFileSync(join(dir, 'ok.csv'), `from,to,subject,html,text\na@example.com,b@example.com,Hi,"${html.replace(/"/g, '""')}",Hello there\n`);
    expect((await inDir(['batch', 'ok.csv', '--dry-run'])).code).toBe(0);
    expect(invalid((await inDir(['lint', '--batch', 'ok.csv', '--json'])).stdout)).toEqual([]);
  });

  it('a CSV entry with an unknown column: batch refuses it, so does lint', async () => {
    writeFileSync(join(dir, 'bad.csv'), `from,to,subject,html,colour\na@example.com,b@example.com,Hi,<p>x</p>,red\n`);
    const batch = await inDir(['batch', 'bad.csv', '--dry-run', '--json']);
    const batchError = (JSON.parse(batch.stdout) as { errors: Array<{ index: number; error: string }> }).errors;
    expect(batchError).toHaveLength(1);
    expect(invalid((await inDir(['lint', '--batch', 'bad.csv', '--json'])).stdout)).toEqual([['bad.csv entry 0', 'error', batchError[0]!.error]]);
  });
});

describe('lint leaves to the command line what the command line can give', () => {
  it('--file without to, from or subject (send --to, --from, --subject give them): no entry-invalid', async () => {
    writeFileSync(join(dir, 'partial.json'), JSON.stringify({ html, text: 'Hello there' }));
    expect((await inDir(['send', '--file', 'partial.json', '--to', 'b@example.com', '--from', 'a@example.com', '--subject', 'Hi', '--dry-run'])).code).toBe(0);
    expect(invalid((await inDir(['lint', '--file', 'partial.json', '--json'])).stdout)).toEqual([]);
    writeFileSync(join(dir, 'partial-templated.json'), JSON.stringify({ template: 'welcome', variables: { name: 'Ada' } }));
    expect(invalid((await inDir(['lint', '--file', 'partial-templated.json', '--json'])).stdout)).toEqual([]);
  });

  it('--batch entries without from or subject (batch --from, --subject give them): no entry-invalid; without to: invalid, as batch says', async () => {
    const lines = [{ to: 'b@example.com', html, text: 'Hello there' }, { from: 'a@example.com', subject: 'Hi', html, text: 'Hello there' }].map((l) => JSON.stringify(l)).join('\n') + '\n';
    writeFileSync(join(dir, 'defaults.ndjson'), lines);
    const batch = await inDir(['batch', 'defaults.ndjson', '--from', 'a@example.com', '--subject', 'Hi', '--dry-run', '--json']);
    const batchError = (JSON.parse(batch.stdout) as { errors: Array<{ index: number; error: string }> }).errors;
    expect(batchError.map((e) => e.index)).toEqual([1]);
    expect(invalid((await inDir(['lint', '--batch', 'defaults.ndjson', '--json'])).stdout)).toEqual([['defaults.ndjson entry 1', 'error', batchError[0]!.error]]);
  });
});

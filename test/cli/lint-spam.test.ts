import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findSpamAssassin, parseReport, spamFindings, toMimeMessage } from '../../src/lint/spam.js';
import { runInProcess } from '../helpers/context.js';

const fixtures = fileURLToPath(new URL('../fixtures/lint/', import.meta.url));
const lint = (args: string[], env: Record<string, string | undefined> = { PATH: process.env.PATH }) => runInProcess(['lint', ...args], { cwd: fixtures, env });
const installed = spawnSync('spamassassin', ['--version'], { stdio: 'ignore' }).status === 0;
interface Report {
  results: Array<{ findings: Array<{ check: string; severity: string; message: string }>; skipped: string[] }>;
  skipped: string[];
}

describe('lint --spam: reading SpamAssassin', () => {
  it("parses the report's score, required score and rules (a report spamassassin 4.0.1 printed)", () => {
    const result = parseReport(readFileSync(`${fixtures}spamassassin-report.txt`, 'utf8'), 'spamassassin');
    expect(result.score).toBe(1.1);
    expect(result.required).toBe(5);
    expect(result.rules.map((r) => [r.name, r.points])).toEqual([
      ['NO_RECEIVED', -0],
      ['MSGID_SHORT', 0],
      ['NO_RELAYS', -0],
      ['HTML_MESSAGE', 0],
      ['MIME_HTML_ONLY', 0.1],
      ['TO_NO_BRKTS_HTML_ONLY', 1],
    ]);
    expect(spamFindings(result, undefined).map((f) => [f.check, f.severity, f.message])).toEqual([
      ['spam-rules', 'info', 'SpamAssassin scores it 1.1 (threshold 5): TO_NO_BRKTS_HTML_ONLY (1) To: lacks brackets and HTML only; MIME_HTML_ONLY (0.1) BODY: Message only has text/html MIME parts'],
    ]);
    expect(spamFindings(result, 1)[0]).toMatchObject({ check: 'spam-score', severity: 'error' });
  });

  it('hands it one MIME message: text and HTML as alternatives, base64, a real Message-ID', () => {
    const mime = toMimeMessage({ html: '<p>Hi</p>', text: 'Hi', subject: 'Grüße', fields: { from: 'ops@example.com' } });
    expect(mime).toMatch(/^From: <ops@example\.com>\nTo: <recipient@example\.com>\nSubject: =\?UTF-8\?B\?R3LDvMOfZQ==\?=\n/);
    expect(mime).toMatch(/\nMessage-ID: <[0-9a-f-]{36}@example\.com>\n/);
    expect(mime).toContain('Content-Type: multipart/alternative;');
    expect(mime).toContain(`Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n${Buffer.from('Hi').toString('base64')}`);
    expect(toMimeMessage({ html: '<p>Hi</p>' })).not.toContain('multipart');
  });
});

describe('lint --spam: finding SpamAssassin', () => {
  it('asks spamc once whether a spamd answers: no spamd costs no retries (spamc alone tries 3 times, a second apart)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-spamc-'));
    try {
      // A stand-in spamc that records its arguments and finds no spamd, as the real one exits then.
      writeFileSync(join(dir, 'spamc'), '#!/bin/sh\nprintf \'%s\\n\' "$@" > "$SPAMC_ARGS"\nexit 69\n');
      chmodSync(join(dir, 'spamc'), 0o755);
      const args = join(dir, 'args.txt');
      const scorer = await findSpamAssassin({ PATH: dir, SPAMC_ARGS: args }, new AbortController().signal);
      expect(scorer).toBeUndefined();
      expect(readFileSync(args, 'utf8').split('\n').filter(Boolean)).toEqual(['-K', '--connect-retries=1']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('lint --spam without SpamAssassin', () => {
  it('says the check was skipped (JSON, and a line on stderr), and passes nothing off as scored', async () => {
    const r = await lint(['clean.html', '--spam', '--json'], { PATH: '/nonexistent' });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.skipped).toEqual(['spam: SpamAssassin is not installed (spamc with a running spamd, or spamassassin): apt-get install spamassassin']);
    expect(report.results[0]?.findings).toEqual([]);
    const table = await runInProcess(['lint', 'clean.html', '--spam'], { cwd: fixtures, env: { PATH: '/nonexistent' }, tty: true, color: false });
    expect(table.stderr).toContain('skipped: spam: SpamAssassin is not installed');
  });

  it('--spam-threshold must be a number', async () => {
    const r = await lint(['clean.html', '--spam-threshold', 'high']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--spam-threshold must be a number, such as 5 or 3.5');
  });
});

// .ci/run installs SpamAssassin; elsewhere (no root, no apt-get) these cases are skipped, and say so.
describe.skipIf(!installed)(`lint --spam with the real SpamAssassin${installed ? '' : ' (skipped: SpamAssassin is not installed here; apt-get install spamassassin)'}`, () => {
  it('a spammy email scores over the threshold: exit 10, an error listing the rules by points', { timeout: 60_000 }, async () => {
    const r = await lint(['spammy.html', '--spam', '--json']);
    expect(r.code).toBe(10);
    const spam = (JSON.parse(r.stdout) as Report).results[0]?.findings.find((f) => f.check.startsWith('spam-'));
    expect(spam?.check).toBe('spam-score');
    expect(spam?.severity).toBe('error');
    expect(spam?.message).toMatch(/^SpamAssassin scores it \d+(\.\d+)? \(threshold 5\): /);
    expect(spam?.message).toContain('DRUGS_ERECTILE');
  });

  it('the clean email gets no spam finding; --spam-threshold moves the line', { timeout: 60_000 }, async () => {
    const clean = await lint(['clean.html', '--spam', '--json']);
    expect(clean.code).toBe(0);
    expect((JSON.parse(clean.stdout) as Report).results[0]?.findings).toEqual([]);
    const lenient = await lint(['spammy.html', '--spam-threshold', '1000', '--json']);
    expect((JSON.parse(lenient.stdout) as Report).results[0]?.findings.find((f) => f.check.startsWith('spam-'))?.check).toBe('spam-rules');
  });
});

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { EmailUnderCheck } from './checks.js';
import { finding, type Finding } from './rules.js';

/** A rule SpamAssassin matched: its name, points and description, as its report prints them. */
export interface SpamRule {
  name: string;
  points: number;
  description: string;
}

export interface SpamResult {
  score: number;
  /** SpamAssassin's own required score (5.0 unless configured). */
  required: number;
  rules: SpamRule[];
  /** Which program scored it: spamc (a running spamd) or spamassassin. */
  via: 'spamc' | 'spamassassin';
}

export interface SpamScorer {
  via: 'spamc' | 'spamassassin';
  score(message: string): Promise<SpamResult>;
}

interface Exec {
  code: number | null;
  stdout: string;
  /** The program is not installed (ENOENT). */
  missing?: boolean;
}

function exec(cmd: string, args: string[], input: string, env: Record<string, string | undefined>, timeoutMs: number, signal: AbortSignal): Promise<Exec> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'ignore'], timeout: timeoutMs, signal });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stdin.on('error', () => undefined);
    child.on('error', (err: NodeJS.ErrnoException) => resolve({ code: null, stdout, missing: err.code === 'ENOENT' }));
    child.on('close', (code) => resolve({ code, stdout }));
    child.stdin.end(input);
  });
}

/**
 * The local SpamAssassin, if there is one: spamc when a spamd answers it (fast), else the
 * `spamassassin` program, run with -L (local tests only: no network lookups, no web service) and
 * -x (no user preference file created). Undefined when neither is installed.
 */
export async function findSpamAssassin(env: Record<string, string | undefined>, signal: AbortSignal, timeoutMs = 60_000): Promise<SpamScorer | undefined> {
  // One try: with no spamd, spamc alone tries to connect 3 times a second apart (2 s for nothing).
  const ping = await exec('spamc', ['-K', '--connect-retries=1'], '', env, 5_000, signal);
  if (!ping.missing && ping.code === 0) {
    return { via: 'spamc', score: async (message) => parseReport(await run('spamc', ['-R'], message), 'spamc') };
  }
  const probe = await exec('spamassassin', ['--version'], '', env, 10_000, signal);
  if (probe.missing || probe.code !== 0) return undefined;
  return { via: 'spamassassin', score: async (message) => parseReport(await run('spamassassin', ['-L', '-x', '-t'], message), 'spamassassin') };

  async function run(cmd: string, args: string[], message: string): Promise<string> {
    const r = await exec(cmd, args, message, env, timeoutMs, signal);
    // spamc -R exits 1 for spam; spamassassin -t exits 0 either way.
    if (r.code === null || !/Content analysis details|^-?[\d.]+\/[\d.]+/m.test(r.stdout)) throw new Error(`${cmd} gave no report (exit ${r.code ?? 'killed'})`);
    return r.stdout;
  }
}

/** Reads the score and the table of rules from SpamAssassin's report (spamc -R or spamassassin -t). */
export function parseReport(text: string, via: SpamResult['via']): SpamResult {
  const points = /\((-?[\d.]+) points, (-?[\d.]+) required\)/.exec(text) ?? /^(-?[\d.]+)\/(-?[\d.]+)\s*$/m.exec(text);
  const rules: SpamRule[] = [];
  const table = text.slice(text.search(/^-{4} -{10,}/m));
  let current: SpamRule | undefined;
  for (const line of table.split('\n').slice(1)) {
    const row = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s+(.*)$/.exec(line);
    if (row) {
      current = { points: Number(row[1]), name: row[2] as string, description: (row[3] as string).trim() };
      rules.push(current);
    } else if (current && /^\s{10,}\S/.test(line)) current.description += ` ${line.trim()}`;
    else if (line.trim() === '') break;
  }
  return { score: Number(points?.[1] ?? NaN), required: Number(points?.[2] ?? 5), rules, via };
}

/**
 * The email as a mail system would hand it to SpamAssassin: one MIME message, the text and HTML
 * parts as alternatives. Headers the service would set (Message-ID, Date) are given real-looking
 * values, so that the score is about the content, not about a made-up envelope.
 */
export function toMimeMessage(email: EmailUnderCheck, now = new Date()): string {
  const from = email.fields?.from ?? 'sender@example.com';
  const to = email.fields?.to ?? 'recipient@example.com';
  const subject = email.subject ?? 'Email check';
  const address = (a: string) => (a.includes('<') ? a : `<${a}>`);
  const boundary = `mailroom-${randomUUID()}`;
  const headers = [
    `From: ${address(from)}`,
    `To: ${address(to)}`,
    `Subject: ${encodeHeader(subject)}`,
    `Date: ${now.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@${/@([^>\s]+)/.exec(from)?.[1] ?? 'example.com'}>`,
    'MIME-Version: 1.0',
  ];
  const part = (type: string, body: string) => `Content-Type: ${type}; charset=utf-8\nContent-Transfer-Encoding: base64\n\n${base64Lines(body)}`;
  if (email.text === undefined) return `${headers.join('\n')}\n${part('text/html', email.html)}\n`;
  return `${headers.join('\n')}\nContent-Type: multipart/alternative; boundary="${boundary}"\n\n--${boundary}\n${part('text/plain', email.text)}\n--${boundary}\n${part('text/html', email.html)}\n--${boundary}--\n`;
}

const encodeHeader = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s).toString('base64')}?=`);
const base64Lines = (s: string) => Buffer.from(s).toString('base64').replace(/.{76}/g, '$&\n');

/** The findings for one score: over the threshold an error, else the rules that added points, as info. */
export function spamFindings(result: SpamResult, threshold: number | undefined): Finding[] {
  const limit = threshold ?? result.required;
  const scored = result.rules.filter((r) => r.points > 0).sort((a, b) => b.points - a.points);
  const listed = scored.map((r) => `${r.name} (${r.points}) ${r.description}`).join('; ');
  const score = `${result.score} (threshold ${limit})`;
  if (result.score >= limit) return [finding('spam-score', `SpamAssassin scores it ${score}${listed ? `: ${listed}` : ''}`)];
  if (scored.length === 0) return [];
  return [finding('spam-rules', `SpamAssassin scores it ${score}: ${listed}`)];
}

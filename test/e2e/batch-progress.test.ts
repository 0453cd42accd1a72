import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { batchWorld, ndjsonInput } from '../helpers/batch.js';

// The bar redraws its line with \r; every frame is one "N% | S sent, F failed" between them.
// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
const FRAME = /(\d+)% \| ([\d,]+) sent, ([\d,]+) failed/g;
const num = (s: string) => Number(s.replace(/,/g, ''));
const frames = (out: string) => [...plain(out).matchAll(FRAME)].map((m) => ({ percent: Number(m[1]), settled: num(m[2]!) + num(m[3]!) }));
const CTRL_C = '\x03';
/** What the terminal shows: each line as its last redraw left it (a redraw starts with \r and clears to the right). */
const screen = (out: string) =>
  plain(out)
    .split('\n')
    .map((line) => line.split('\r').filter((part) => part !== '').at(-1) ?? '')
    .join('\n');

let dir: string;
let env: Record<string, string>;
batchWorld('mailroom-progress-', (world) => ({ dir, env } = world));

describe('the batch progress bar on a terminal', () => {
  it('shows entries settled: its percentage never runs ahead of the count, and it ends on its own line', async () => {
    const input = join(dir, 'small.ndjson');
    ndjsonInput(input, 3000);
    const r = await runCli(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--size', '10'], { env, tty: true, timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    const seen = frames(r.stdout);
    expect(seen.length).toBeGreaterThan(1);
    for (const f of seen) expect(f.percent, `${f.percent}% at ${f.settled} of 3000`).toBeLessThanOrEqual(Math.floor((f.settled / 3000) * 100) + 1);
    expect(seen.at(-1)).toEqual({ percent: 100, settled: 3000 });
    // The last frame, then a line break, then the summary at the start of its own line.
    expect(screen(r.stdout)).toMatch(/100% \| 3,000 sent, 0 failed [^\r\n]*\nSent 3,000 of 3,000 emails in /);
  });

  it('interrupted: the bar stays where it stopped (no 100%, no ETA 0s) and its line ends before the summary', async () => {
    const input = join(dir, 'big.ndjson');
    ndjsonInput(input, 20_000);
    const r = await runCli(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--size', '1', '--concurrency', '1'], {
      env,
      tty: true,
      input: [{ after: /\d+% \| [1-9][\d,]* sent/, send: CTRL_C }, { after: /to finish, run again/, send: '' }],
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(130);
    const out = screen(r.stdout);
    const last = frames(r.stdout).at(-1);
    expect(last?.percent).toBeLessThan(100);
    expect(out).not.toContain('ETA 0s');
    const barLine = out.split('\n').find((l) => l.includes('in flight')) ?? '';
    expect(barLine).not.toContain('^C');
    expect(out).toMatch(/in flight \| ETA [^\n]*\n(\^C\n)?Stopped after sending [\d,]+ emails/);
  });

  it('a double Ctrl-C leaves no "^C^C" on the bar line: the bar line ends, then the process exits 130', async () => {
    const input = join(dir, 'big2.ndjson');
    ndjsonInput(input, 20_000);
    const r = await runCli(['batch', input, '--from', 'ops@example.com', '--subject', 'Hi', '--size', '1', '--concurrency', '1'], {
      env,
      tty: true,
      input: [{ after: /\d+% \| [1-9][\d,]* sent/, send: CTRL_C + CTRL_C }],
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(130);
    const out = screen(r.stdout);
    expect(out).not.toContain('^C^C');
    for (const line of out.split('\n')) if (line.includes('in flight')) expect(line).not.toContain('^C');
    expect(out.endsWith('\n')).toBe(true);
  });
});

// Start of `mailroom sandbox --data` after a crash that left a large journal. Run after `npm run build`:
//   node bench/sandbox-replay.mjs [emails=100000] [rounds=N] [against=<checkout>] [format=batches|lines]
// Makes the files a SIGKILL leaves after that many accepted emails (a snapshot and a journal: by
// default one line per batch of 50, each holding the batch's body as it came; `format=lines`, one
// line per email, as a journal of a checkout before 2026-11-26 evening holds, or as this one writes
// for a request it cannot keep as its body), then times, in alternating rounds (default 3), a start on a copy of them until
// the sandbox answers, beside a start on an empty data file, and prints the medians of wall time and
// of the process's CPU time up to that answer (Linux /proc), with the ratio replay / empty start.
// `against=<checkout>`: another built checkout's bin/mailroom.js starts on the same files in the
// same rounds, and the ratio of this checkout's replay to its replay is printed too.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstJsonLine, median } from './measure.mjs';

const args = process.argv.slice(2);
const named = (name) => args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
const emails = Number(named('emails') ?? 100_000);
const rounds = Number(named('rounds') ?? 3);
const here = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));
const against = named('against') && join(resolve(named('against')), 'bin/mailroom.js');
const format = named('format') ?? 'batches';
if (format !== 'batches' && format !== 'lines') throw new Error('format= is batches or lines');

const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-replay-'));
const crashed = join(dir, 'crashed');
const empty = join(dir, 'empty');
mkdirSync(crashed);
mkdirSync(empty);

function sandbox(bin, dataFile) {
  return spawn(process.execPath, [bin, 'sandbox', '--data', dataFile, '--port', '0', '--json', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
}

/** CPU time (user + system) a running process has used so far, in ms; undefined off Linux. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

// The files a kill leaves: one batch of 50 sent for real, its journal line then repeated with other
// ids and recipients (`format=lines`: its first email as an email line, repeated).
const html = '<p>Thanks for your order. Your total is <b>$42.00</b>.</p><p><a href="https://shop.test/orders/1">View it</a></p>';
const order = (i) => ({ from: 'shop@example.com', to: `ada${i}@customer.test`, subject: `Your receipt ${i}`, html, idempotencyKey: `order-${i}` });
try {
  const child = sandbox(here, join(crashed, 'state.json'));
  const ready = await firstJsonLine(child);
  const res = await fetch(`${ready.baseUrl}/v1/emails/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ready.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ emails: Array.from({ length: 50 }, (_, i) => order(i)) }),
  });
  if (res.status !== 200) throw new Error(`the first batch answered ${res.status}`);
  const [caught] = (await (await fetch(`${ready.baseUrl}/_sandbox/emails?limit=50`)).json()).items;
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  const name = readdirSync(crashed).find((f) => f.includes('.journal-'));
  const lines = readFileSync(join(crashed, name), 'utf8').trim().split('\n');
  const sent = JSON.parse(lines.find((l) => l.startsWith('{"t":"batch"')));
  const out = lines.filter((l) => !l.startsWith('{"t":"batch"'));
  const at = Date.parse(sent.at);
  const pad = (i) => String(i).padStart(20, '0');
  if (format === 'lines') {
    // As the email was kept: its text was generated only when read above.
    const { text: _text, ...email } = caught;
    for (let i = 0; i < emails; i++) {
      out.push(JSON.stringify({ t: 'e', c: `ctc_${pad(i)}`, email: { ...email, id: `trs_${pad(i)}`, messageId: `msg-${i}`, ...order(i), createdAt: new Date(at + i).toISOString() } }));
    }
  } else {
    for (let b = 0; b * 50 < emails; b++) {
      const n = Math.min(50, emails - b * 50);
      // Each request's ids come from a seed of its own; every email made a contact.
      out.push(JSON.stringify({ ...sent, at: new Date(at + b).toISOString(), seed: randomUUID().replaceAll('-', ''), c: '1'.repeat(n), body: { emails: Array.from({ length: n }, (_, i) => order(b * 50 + i)) } }));
    }
  }
  const text = `${out.join('\n')}\n`;
  writeFileSync(join(crashed, name), text);
  console.log(`journal: ${emails.toLocaleString('en-US')} emails, ${(text.length / 1048576).toFixed(1)} MiB`);

  /** Starts on a copy of `from`, until the sandbox answers a request: wall and CPU ms. */
  async function start(bin, from) {
    const copy = join(dir, 'run');
    rmSync(copy, { recursive: true, force: true });
    cpSync(from, copy, { recursive: true });
    const t0 = performance.now();
    const child = sandbox(bin, join(copy, 'state.json'));
    const { baseUrl } = await firstJsonLine(child, 120_000);
    const total = (await (await fetch(`${baseUrl}/_sandbox/emails?limit=0`)).json()).total;
    const wall = performance.now() - t0;
    const cpu = cpuMs(child.pid);
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
    return { wall, cpu, total };
  }

  const runs = { replay: [], empty: [], against: [] };
  for (let r = 0; r < rounds; r++) {
    const replay = await start(here, crashed);
    if (replay.total !== emails) throw new Error(`the replayed sandbox reports ${replay.total} emails, not ${emails}`);
    runs.replay.push(replay);
    runs.empty.push(await start(here, empty));
    if (against) runs.against.push(await start(against, crashed));
  }
  const show = (label, xs) => {
    const wall = median(xs.map((x) => x.wall));
    const cpus = xs.map((x) => x.cpu).filter((c) => c !== undefined);
    const cpu = cpus.length ? median(cpus) : undefined;
    console.log(`${label}: ${wall.toFixed(0)} ms wall${cpu === undefined ? '' : `, ${cpu.toFixed(0)} ms CPU`} (median of ${xs.length})`);
    return { wall, cpu };
  };
  const replay = show('start replaying the journal', runs.replay);
  const base = show('start on an empty data file', runs.empty);
  console.log(`replay / empty start: ${(replay.wall / base.wall).toFixed(2)}x wall${replay.cpu && base.cpu ? `, ${(replay.cpu / base.cpu).toFixed(2)}x CPU` : ''}`);
  if (against) {
    const other = show(`the same files, ${named('against')}`, runs.against);
    console.log(`this checkout / ${named('against')}: ${(replay.wall / other.wall).toFixed(2)}x wall${replay.cpu && other.cpu ? `, ${(replay.cpu / other.cpu).toFixed(2)}x CPU` : ''}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

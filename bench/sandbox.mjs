// Throughput of the sandbox: concurrent batch requests of 50 emails over undici, as a client
// benchmark would drive it. Run after `npm run build`:
//   node bench/sandbox.mjs [seconds] [concurrency] [scheduled] [webhooks=N] [data] [plain]
//                          [against=<checkout>] [vs-data] [rounds=N]
// Prints emails accepted per second, the sandbox's CPU (user and system apart, from /proc) and
// whether the inbox holds exactly the accepted emails.
// `scheduled`: every email has a sendAt 1 to 25 hours ahead, so the run also shows whether a
// growing set of scheduled emails (100,000 and more) slows the sandbox down. `webhooks=N`: N webhooks
// (a receiver in another process) subscribe to CONTACT_CREATED, which every email fires. `data`: the
// sandbox runs with --data (a temp file), so every accepted email is saved before its answer.
// `plain`: each email's html is one paragraph of text, instead of a heading, bold text and a link.
// Comparisons, measured in one run as alternating rounds (`rounds`, default 3) and printed as the
// ratio of medians and of each pair: `against=<checkout>` runs another built checkout's sandbox (its
// bin/mailroom.js) beside this one's; `vs-data` runs this sandbox with --data beside it without.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { orderBatches } from './order-emails.mjs';

const args = process.argv.slice(2);
const named = (name) => args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
const numbers = args.filter((a) => /^\d+$/.test(a)).map(Number);
const seconds = numbers[0] ?? 5;
const concurrency = numbers[1] ?? 8;
const scheduled = args.includes('scheduled');
const data = args.includes('data');
const plain = args.includes('plain');
const vsData = args.includes('vs-data');
const against = named('against');
const rounds = Number(named('rounds') ?? 3);
const webhooks = Number(named('webhooks') ?? 0);
const TARGET = 5000;
const bin = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));

/** One timed run of a sandbox: `{ rate, cpu, accepted, ok }`. */
async function measure(sandboxBin, withData) {
  const dataDir = withData ? mkdtempSync(join(tmpdir(), 'mailroom-bench-')) : undefined;
  const child = spawn(process.execPath, [sandboxBin, 'sandbox', '--port', '0', '--json', '--quiet', ...(dataDir ? ['--data', join(dataDir, 'state.json')] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let line = '';
  for await (const chunk of child.stdout) {
    line += chunk;
    if (line.includes('\n')) break;
  }
  const { baseUrl, apiKey } = JSON.parse(line);
  const agent = new Agent({ connections: concurrency, pipelining: 1 });

  let receiver;
  if (webhooks > 0) {
    receiver = spawn(process.execPath, ['-e', "const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.end()); }); s.listen(0, '127.0.0.1', () => console.log(s.address().port));"], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [port] = await once(receiver.stdout, 'data');
    for (let i = 0; i < webhooks; i++) {
      const res = await request(`${baseUrl}/v1/webhooks`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${String(port).trim()}/hooks`, events: ['CONTACT_CREATED'] }),
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`webhook create answered ${res.statusCode}`);
    }
  }

  const batchBody = orderBatches({ keyPrefix: 'bench', plain, scheduled });

  async function post(body) {
    const res = await request(`${baseUrl}/v1/emails/batch`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body,
    });
    const json = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`batch answered ${res.statusCode}: ${JSON.stringify(json)}`);
    return json.emails;
  }

  // Warm up (JIT, connections), then reset so the count covers only the measured run.
  await Promise.all(Array.from({ length: concurrency }, () => post(batchBody())));
  await request(`${baseUrl}/_sandbox/reset`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.body.dump());

  // The sandbox's own CPU time (Linux): on a shared machine wall-clock rates swing with the load,
  // emails per CPU-second of the sandbox do much less.
  // User and system time apart (µs per email, printed with the medians): persistence shows in both.
  function cpuSeconds() {
    try {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return { user: Number(fields[11]) / 100, sys: Number(fields[12]) / 100 };
    } catch {
      return undefined;
    }
  }
  const cpuBefore = cpuSeconds();
  let accepted = 0;
  let failed = 0;
  let requests = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const body = batchBody();
        const result = await post(body);
        accepted += result.successful.length;
        failed += result.failed.length;
        requests += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = cpuBefore === undefined ? undefined : cpuSeconds();
  const user = cpuAfter === undefined ? undefined : cpuAfter.user - cpuBefore.user;
  const sys = cpuAfter === undefined ? undefined : cpuAfter.sys - cpuBefore.sys;
  const cpu = user === undefined ? undefined : user + sys;

  const inboxRes = await request(`${baseUrl}/_sandbox/emails?limit=0`, { dispatcher: agent });
  const { total } = await inboxRes.body.json();

  child.kill('SIGTERM');
  await once(child, 'exit');
  receiver?.kill();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await agent.close();
  return { rate: accepted / elapsed, cpu, user, sys, accepted, failed, requests, elapsed, total, ok: total === accepted && failed === 0 };
}

const describe = (withData) => `${scheduled ? ', every email scheduled' : ''}${withData ? ', --data' : ''}${plain ? ', plain html' : ''}${webhooks ? `, ${webhooks} webhooks on CONTACT_CREATED` : ''}`;
const perCpu = (r) => (r.cpu ? Math.round(r.accepted / r.cpu) : undefined);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

if (against === undefined && !vsData) {
  const r = await measure(bin, data);
  console.log(`sandbox bench: ${r.requests} batch requests of 50, concurrency ${concurrency}, ${r.elapsed.toFixed(2)} s${describe(data)}`);
  console.log(`  emails accepted/s : ${Math.round(r.rate)} (target ${TARGET}; ratio ${(r.rate / TARGET).toFixed(2)}x)`);
  if (r.cpu) console.log(`  sandbox CPU       : ${r.cpu.toFixed(2)} s, ${perCpu(r)} emails per CPU-second (${((r.user / r.accepted) * 1e6).toFixed(2)} µs user + ${((r.sys / r.accepted) * 1e6).toFixed(2)} µs system per email)`);
  console.log(`  failed entries    : ${r.failed}`);
  console.log(`  inbox == accepted : ${r.ok} (inbox ${r.total}, accepted ${r.accepted})`);
  process.exitCode = r.ok ? 0 : 1;
} else {
  // A: this checkout as asked (with --data for vs-data); B: the other checkout, or this one without --data.
  const sides = vsData
    ? [
        { name: `this checkout${describe(true)}`, bin, data: true, runs: [] },
        { name: `this checkout${describe(false)}`, bin, data: false, runs: [] },
      ]
    : [
        { name: `this checkout${describe(data)}`, bin, data, runs: [] },
        { name: `${against}${describe(data)}`, bin: join(resolve(against), 'bin', 'mailroom.js'), data, runs: [] },
      ];
  console.log(`sandbox bench, ${rounds} alternating rounds of ${seconds} s, concurrency ${concurrency}: A = ${sides[0].name}; B = ${sides[1].name}`);
  let ok = true;
  for (let round = 0; round < rounds; round++) {
    // Alternate which side goes first, so a drift in the machine's load weighs on both.
    const order = round % 2 === 0 ? sides : [sides[1], sides[0]];
    for (const side of order) {
      const r = await measure(side.bin, side.data);
      ok &&= r.ok;
      side.runs.push(r);
    }
    const [a, b] = sides.map((s) => s.runs[round]);
    console.log(`  round ${round + 1}: A ${Math.round(a.rate)}/s (${perCpu(a)} per CPU-s), B ${Math.round(b.rate)}/s (${perCpu(b)} per CPU-s): A/B ${(a.rate / b.rate).toFixed(2)}x wall, ${(perCpu(a) / perCpu(b)).toFixed(2)}x per CPU-s`);
  }
  const [ma, mb] = sides.map((s) => median(s.runs.map((r) => r.rate)));
  const [ca, cb] = sides.map((s) => median(s.runs.map(perCpu)));
  const split = (s) => {
    const runs = s.runs.filter((r) => r.user !== undefined);
    if (runs.length === 0) return 'n/a';
    const us = (f) => median(runs.map((r) => (f(r) / r.accepted) * 1e6)).toFixed(2);
    return `${us((r) => r.user)} µs user + ${us((r) => r.sys)} µs system per email`;
  };
  console.log(`  medians: A ${Math.round(ma)}/s, B ${Math.round(mb)}/s: A/B ${(ma / mb).toFixed(2)}x; per CPU-second A ${ca}, B ${cb}: ${(ca / cb).toFixed(2)}x`);
  console.log(`  CPU split: A ${split(sides[0])}; B ${split(sides[1])}`);
  console.log(`  inbox == accepted in every run: ${ok}`);
  process.exitCode = ok ? 0 : 1;
}

// Memory of a sandbox left running under load: once it holds its `--retain` newest emails, its RSS
// must stay flat. Run after `npm run build`:
//   node bench/sandbox-memory.mjs [seconds=120] [retain=10000] [rate=1000] [webhooks=1]
// Drives the sandbox at a steady `rate` of emails per second (batches of 50, each email to a new
// recipient with its own idempotency key and a heading, bold text and a link, so that contacts,
// keys and deliveries grow as emails do), with `webhooks` webhooks on CONTACT_CREATED (a receiver
// in another process: one delivery attempt per email each) and a read of the newest 50 emails every
// second, as an open inbox does. It samples the sandbox's RSS every second. From the moment twice
// `retain` emails were accepted (the limit reached and every kind of record turned over once), it
// compares the median RSS of the last fifth of the run with that of the first fifth (target: at
// most 1.10x; the garbage collector's sawtooth moves single samples more, so it prints the largest
// too), and checks that the counts stay exact.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { orderBatches } from './order-emails.mjs';

const named = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1) ?? fallback);
const seconds = named('seconds', 120);
const retain = named('retain', 10_000);
const rate = named('rate', 1000);
const webhooks = named('webhooks', 1);
const TARGET = 1.1;
const bin = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));

const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json', '--quiet', '--retain', String(retain)], { stdio: ['ignore', 'pipe', 'inherit'] });
let line = '';
for await (const chunk of child.stdout) {
  line += chunk;
  if (line.includes('\n')) break;
}
const { baseUrl, apiKey } = JSON.parse(line);
const agent = new Agent({ connections: 8, pipelining: 1 });
const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };

let receiver;
if (webhooks > 0) {
  receiver = spawn(process.execPath, ['-e', "const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.end()); }); s.listen(0, '127.0.0.1', () => console.log(s.address().port));"], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = await once(receiver.stdout, 'data');
  for (let i = 0; i < webhooks; i++) {
    const res = await request(`${baseUrl}/v1/webhooks`, { method: 'POST', dispatcher: agent, headers: auth, body: JSON.stringify({ url: `http://127.0.0.1:${String(port).trim()}/hooks`, events: ['CONTACT_CREATED'] }) });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`webhook create answered ${res.statusCode}`);
  }
}

function rssMb() {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
}

const batchBody = orderBatches({ keyPrefix: 'soak' });

let accepted = 0;
let failed = 0;
const started = performance.now();
const deadline = started + seconds * 1000;
const samples = [];
let limitReachedAt;

// One batch every 50 / rate seconds, each awaited by its own promise (at most 64 in flight).
const inFlight = new Set();
const sender = (async () => {
  let next = performance.now();
  while (performance.now() < deadline) {
    next += (50 / rate) * 1000;
    const wait = next - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight.size >= 64) await Promise.race(inFlight);
    const p = request(`${baseUrl}/v1/emails/batch`, { method: 'POST', dispatcher: agent, headers: auth, body: batchBody() })
      .then(async (res) => {
        const json = await res.body.json();
        if (res.statusCode !== 200) throw new Error(`batch answered ${res.statusCode}`);
        accepted += json.emails.successful.length;
        failed += json.emails.failed.length;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
})();

const sampler = setInterval(async () => {
  const t = (performance.now() - started) / 1000;
  samples.push({ t, rss: rssMb(), accepted });
  if (limitReachedAt === undefined && accepted >= 2 * retain) limitReachedAt = t;
  const res = await request(`${baseUrl}/_sandbox/emails?limit=50`, { dispatcher: agent });
  await res.body.dump();
}, 1000);

await sender;
clearInterval(sampler);
const emailsRes = await request(`${baseUrl}/_sandbox/emails?limit=0`, { dispatcher: agent });
const { total } = await emailsRes.body.json();
const keptRes = await request(`${baseUrl}/_sandbox/emails`, { dispatcher: agent });
const kept = (await keptRes.body.json()).items.length;
child.kill('SIGTERM');
await once(child, 'exit');
receiver?.kill();
await agent.close();

const elapsed = (performance.now() - started) / 1000;
console.log(`sandbox memory bench: ${seconds} s at ${rate} emails/s asked (${Math.round(accepted / elapsed)} accepted/s), --retain ${retain}, ${webhooks} webhook(s)`);
for (const s of samples.filter((_, i) => i % Math.max(1, Math.round(samples.length / 12)) === 0 || i === samples.length - 1)) {
  console.log(`  ${s.t.toFixed(0).padStart(4)} s  ${String(s.accepted).padStart(9)} emails  RSS ${s.rss.toFixed(1)} MB`);
}
const ok = total === accepted && failed === 0 && kept === Math.min(retain, accepted);
console.log(`  inbox total == accepted: ${total === accepted} (${total}); kept ${kept}; failed ${failed}`);
const after = limitReachedAt === undefined ? [] : samples.filter((s) => s.t >= limitReachedAt);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
if (after.length < 30) {
  console.log(`  not enough time after ${2 * retain} emails to judge (reached at ${limitReachedAt?.toFixed(0) ?? 'never'} s): run longer or at a higher rate`);
  process.exitCode = 1;
} else {
  const fifth = Math.floor(after.length / 5);
  const first = median(after.slice(0, fifth).map((s) => s.rss));
  const last = median(after.slice(-fifth).map((s) => s.rss));
  const max = Math.max(...after.map((s) => s.rss));
  console.log(`  after ${2 * retain} emails (at ${limitReachedAt.toFixed(0)} s), medians of the first and last fifth: ${first.toFixed(1)} MB, ${last.toFixed(1)} MB: ${(last / first).toFixed(3)}x (target at most ${TARGET}x); largest sample ${max.toFixed(1)} MB (${(max / first).toFixed(3)}x)`);
  process.exitCode = ok && last / first <= TARGET ? 0 : 1;
}

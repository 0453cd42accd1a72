// Throughput of the sandbox: concurrent batch requests of 50 emails over undici, as a client
// benchmark would drive it. Run after `npm run build`:
//   node bench/sandbox.mjs [seconds] [concurrency] [scheduled] [webhooks=N] [data]
// Prints emails accepted per second and whether the inbox holds exactly the accepted emails.
// `scheduled`: every email has a sendAt 1 to 25 hours ahead, so the run also shows whether a
// growing set of scheduled emails (100,000 and more) slows the sandbox down. `webhooks=N`: N webhooks
// (a receiver in another process) subscribe to CONTACT_CREATED, which every email fires. `data`: the
// sandbox runs with --data (a temp file), so every accepted email is saved before its answer.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

const numbers = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number);
const seconds = numbers[0] ?? 5;
const concurrency = numbers[1] ?? 8;
const scheduled = process.argv.includes('scheduled');
const data = process.argv.includes('data');
const webhooks = Number(/^webhooks=(\d+)$/.exec(process.argv.find((a) => a.startsWith('webhooks=')) ?? '')?.[1] ?? 0);
const TARGET = 5000;
const bin = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));

const dataDir = data ? mkdtempSync(join(tmpdir(), 'mailroom-bench-')) : undefined;
const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json', '--quiet', ...(dataDir ? ['--data', join(dataDir, 'state.json')] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
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

let seq = 0;
function batchBody() {
  const emails = [];
  for (let i = 0; i < 50; i++) {
    const n = seq++;
    emails.push({
      from: 'Bench <bench@example.com>',
      to: `user${n}@customer.test`,
      subject: `Order ${n} shipped`,
      html: `<h1>Hi user ${n}</h1><p>Your order <b>#${n}</b> is on its way. <a href="https://example.com/t/${n}">Track it</a>.</p>`,
      idempotencyKey: `bench-${n}`,
      ...(scheduled ? { sendAt: new Date(Date.now() + 3_600_000 + (n % 86_400) * 1000).toISOString() } : {}),
    });
  }
  return JSON.stringify({ emails });
}

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
function cpuSeconds() {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
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
const cpu = cpuBefore === undefined ? undefined : cpuSeconds() - cpuBefore;

const inboxRes = await request(`${baseUrl}/_sandbox/emails?limit=0`, { dispatcher: agent });
const { total } = await inboxRes.body.json();

child.kill('SIGTERM');
await once(child, 'exit');
receiver?.kill();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
await agent.close();

const rate = accepted / elapsed;
console.log(`sandbox bench: ${requests} batch requests of 50, concurrency ${concurrency}, ${elapsed.toFixed(2)} s${scheduled ? ', every email scheduled' : ''}${data ? ', --data' : ''}${webhooks ? `, ${webhooks} webhooks on CONTACT_CREATED` : ''}`);
console.log(`  emails accepted/s : ${Math.round(rate)} (target ${TARGET}; ratio ${(rate / TARGET).toFixed(2)}x)`);
if (cpu) console.log(`  sandbox CPU       : ${cpu.toFixed(2)} s, ${Math.round(accepted / cpu)} emails per CPU-second`);
console.log(`  failed entries    : ${failed}`);
console.log(`  inbox == accepted : ${total === accepted} (inbox ${total}, accepted ${accepted})`);
process.exitCode = total === accepted && failed === 0 ? 0 : 1;

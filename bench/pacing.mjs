// `mailroom batch` under the sandbox's rate limit, with and without pacing. Run after `npm run build`:
//   node bench/pacing.mjs [--rates 1,5,50] [--seconds 8] [--only on|off]
// For each rate (requests per second per key) a sandbox starts with `--rate-limit <rate>`; a batch
// sized to take about --seconds at that rate runs through the spawned CLI (`--concurrency 4
// --verbose --json`), once with MAILROOM_PACING=off (the client before pacing: it sends as soon as
// asked and only slows down on 429s) and once with pacing on. Each run counts the 200 and 429
// answers in the --verbose log and takes the run's own duration from the --json summary (input
// read to summary; the spawned process's start-up is in the wall time beside it).
// Ideal: the sandbox's bucket holds one second of requests (at least one), so the first `burst`
// pass at once and the rest at the rate: (requests - burst) / rate seconds. The same batch against
// a sandbox with no limit shows what the machine allows at all: when that takes longer than the
// rate's ideal (a loaded machine at 50/s), the run cannot beat it, and the ratio is also given
// against it.
// Targets: 429s at most 10% of the requests, duration at most 1.1x the ideal. Runs of 8 s keep the
// whole bench near two minutes; the pacer's costs are fixed per run (the first request goes alone,
// 250 ms of quota is kept in hand), so shorter runs are the harder test of the 1.1x target.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));
const option = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};
const rates = option('--rates', '1,5,50').split(',').map(Number);
const seconds = Number(option('--seconds', 8));
const modes = option('--only', '') ? [option('--only', '')] : ['off', 'on'];
const CONCURRENCY = 4;

/** Emails per request: 50 (the API's most) unless that would ask the shared machine for more than ~300 emails/s. */
const sizeFor = (rate) => Math.max(1, Math.min(50, Math.floor(300 / rate)));

function run(args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
  });
}

async function startSandbox(rate) {
  const limit = rate === undefined ? [] : ['--rate-limit', String(rate)];
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json', '--quiet', ...limit], { stdio: ['ignore', 'pipe', 'inherit'] });
  let line = '';
  for await (const chunk of child.stdout) {
    line += chunk;
    if (line.includes('\n')) break;
  }
  return { child, ...JSON.parse(line) };
}

const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-pacing-'));
const rows = [];
const unlimited = await startSandbox(undefined);
try {
  console.log(`mailroom batch against the sandbox's rate limit: --concurrency ${CONCURRENCY}, batches sized to take about ${seconds} s at the rate`);
  for (const rate of rates) {
    const burst = Math.max(1, Math.floor(rate));
    const size = sizeFor(rate);
    const requests = burst + Math.round(seconds * rate);
    const emails = requests * size;
    const idealS = (requests - burst) / rate;
    const input = join(dir, `in-${rate}.ndjson`);
    const lines = [];
    for (let i = 0; i < emails; i++) lines.push(JSON.stringify({ to: `user${i}@customer.test`, html: `<p>Order ${i} shipped</p>` }));
    writeFileSync(input, `${lines.join('\n')}\n`);
    const sandbox = await startSandbox(rate);
    let floorS = 0;
    try {
      for (const mode of ['none', ...modes]) {
        const target = mode === 'none' ? unlimited : sandbox;
        const res = await fetch(`${target.baseUrl}/_sandbox/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        if (!res.ok) throw new Error(`reset answered ${res.status}`);
        const env = {
          ...process.env,
          MAILROOM_BASE_URL: target.baseUrl,
          MAILROOM_API_KEY: target.apiKey,
          MAILROOM_CONFIG_DIR: join(dir, 'cfg'),
          MAILROOM_STATE_DIR: join(dir, `state-${rate}-${mode}`),
          MAILROOM_PACING: mode === 'none' ? 'on' : mode,
        };
        const r = await run(['batch', input, '--from', 'Bench <bench@example.com>', '--subject', 'Order shipped', '--size', String(size), '--concurrency', String(CONCURRENCY), '--verbose', '--json'], env);
        const summary = JSON.parse(r.stdout.split('\n')[0] || '{}');
        const count = (status) => r.stderr.split('\n').filter((l) => l.startsWith(`← ${status} `)).length;
        const inbox = (await (await fetch(`${target.baseUrl}/_sandbox/emails`)).json()).items.length;
        if (r.code !== 0 || summary.sent !== emails || inbox !== emails) throw new Error(`run failed (${rate}/s, pacing ${mode}): exit ${r.code}, sent ${summary.sent}, inbox ${inbox} of ${emails}\n${r.stderr.slice(-800)}`);
        const runS = summary.durationMs / 1000;
        if (mode === 'none') {
          floorS = runS;
          console.log(`  ${String(rate).padStart(3)}/s: the same batch with no rate limit takes ${runS.toFixed(1)} s (wall ${r.seconds.toFixed(1)} s); the rate's ideal is ${idealS.toFixed(1)} s`);
          continue;
        }
        const row = { rate, mode, requests, emails, size, ok: count(200), limited: count(429), runS, wallS: r.seconds, idealS };
        rows.push(row);
        const bound = floorS > idealS ? `, ${(runS / floorS).toFixed(2)}x the no-limit run` : '';
        console.log(
          `  ${String(rate).padStart(3)}/s pacing ${mode.padEnd(3)}: ${requests} requests of ${size} (${emails} emails): ` +
            `${row.limited} x 429 (${((100 * row.limited) / row.ok).toFixed(1)}% of ${row.ok}), ` +
            `${row.runS.toFixed(1)} s vs ideal ${idealS.toFixed(1)} s = ${(row.runS / idealS).toFixed(2)}x${bound} (wall ${row.wallS.toFixed(1)} s)`,
        );
      }
    } finally {
      sandbox.child.kill();
    }
  }
  console.log(`  (load average at the end: ${loadavg()[0].toFixed(2)}; targets: 429s <= 10% of requests, time <= 1.10x ideal)`);
} finally {
  unlimited.child.kill();
  rmSync(dir, { recursive: true, force: true });
}

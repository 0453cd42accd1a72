// `mailroom batch` against its ceiling, and its memory. Run after `npm run build`:
//   node bench/batch.mjs [--rounds 3] [--real-large 200000] [--no-memory] [--against <checkout>]
// 1. Throughput: 20,000 emails through the spawned CLI (`batch file --concurrency 4`, size 50, each
//    run with a state directory of its own, as the first run of a file is: no earlier journal of the
//    same file to find and report) beside
//    a ceiling measured the same way: a spawned process that blasts prebuilt batch bodies at the same
//    sandbox with undici at the same concurrency. Both are timed from spawn to exit; the sandbox is
//    reset before each run; rounds alternate and the median is reported, with the ratio. With
//    `--against <checkout>`, each round also runs that built checkout's CLI (its bin/mailroom.js)
//    the same way through the same sandbox, and the ratio to it is printed too. One unmeasured run
//    of each CLI comes first (the file cache, and mailroom's code cache: bin/mailroom.js).
// 2. Peak RSS (VmHWM, from /usr/bin/time) of the CLI for 10,000 vs 1,000,000 entries in --dry-run,
//    and for 20,000 vs --real-large entries in a real run (1,000,000 real sends would hold a gigabyte
//    of caught mail in the sandbox on a small machine, so the large real run is reduced; it says which).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const bin = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));
const CONCURRENCY = 4;
const SIZE = 50;
const COUNT = 20_000;

const email = (n, key) => ({
  from: 'Bench <bench@example.com>',
  to: `user${n}@customer.test`,
  subject: `Order ${n} shipped`,
  html: `<h1>Hi user ${n}</h1><p>Your order <b>#${n}</b> is on its way. <a href="https://example.com/t/${n}">Track it</a>.</p>`,
  ...(key ? { idempotencyKey: key } : {}),
});

if (process.argv[2] === '--ceiling') await ceiling(process.argv[3], Number(process.argv[4]));
else await main();

/** The ceiling's child process: POST each prebuilt body, `concurrency` at a time, over one undici Agent. */
async function ceiling(file, concurrency) {
  const { Agent, request } = await import('undici');
  const bodies = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  let next = 0;
  let accepted = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await request(`${process.env.BASE_URL}/v1/emails/batch`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${process.env.API_KEY}`, 'content-type': 'application/json' },
        body,
      });
      const json = await res.body.json();
      if (res.statusCode !== 200) throw new Error(`batch answered ${res.statusCode}`);
      accepted += json.emails.successful.length;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await agent.close();
  process.stdout.write(`${JSON.stringify({ accepted })}\n`);
}

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
}

async function main() {
  const rounds = Number(option('--rounds', 3));
  const realLarge = Number(option('--real-large', 200_000));
  const memory = !process.argv.includes('--no-memory');
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-batch-'));
  const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let line = '';
    for await (const chunk of sandbox.stdout) {
      line += chunk;
      if (line.includes('\n')) break;
    }
    const { baseUrl, apiKey } = JSON.parse(line);
    // The CLI's code cache (bin/mailroom.js) in a directory of the bench's own, made by a warm-up run
    // before the rounds, as a user's first batch makes theirs.
    const env = { ...process.env, MAILROOM_BASE_URL: baseUrl, MAILROOM_API_KEY: apiKey, MAILROOM_CONFIG_DIR: join(dir, 'cfg'), MAILROOM_STATE_DIR: join(dir, 'state'), MAILROOM_CACHE_DIR: join(dir, 'code-cache'), BASE_URL: baseUrl, API_KEY: apiKey };
    const reset = async () => {
      const res = await fetch(`${baseUrl}/_sandbox/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      if (!res.ok) throw new Error(`reset answered ${res.status}`);
    };
    // The total counts every email caught since the reset, also those past the sandbox's --retain.
    const inboxCount = async () => (await (await fetch(`${baseUrl}/_sandbox/emails?limit=0`)).json()).total;
    const against = option('--against', undefined);
    const otherBin = against === undefined ? undefined : join(against, 'bin', 'mailroom.js');

    const input = join(dir, 'in.ndjson');
    await writeNdjson(input, COUNT);
    const warmup = join(dir, 'warmup.ndjson');
    await writeNdjson(warmup, SIZE);

    console.log(`batch throughput: ${COUNT.toLocaleString('en-US')} emails, concurrency ${CONCURRENCY}, ${SIZE} per request, ${rounds} rounds (median), each timed from spawn to exit`);
    const cli = [];
    const ceil = [];
    const other = [];
    let runs = 0;
    /** The CLI's environment with a state directory no earlier run used (its journals stay apart). */
    const freshState = () => ({ ...env, MAILROOM_STATE_DIR: join(dir, `state-${runs++}`) });
    const runCli = async (which) => {
      await reset();
      const m = await timed(process.execPath, [which, 'batch', input, '--json', '--concurrency', String(CONCURRENCY), '--size', String(SIZE)], freshState());
      const summary = JSON.parse(m.stdout);
      if (m.code !== 0 || summary.sent !== COUNT || (await inboxCount()) !== COUNT) throw new Error(`mailroom run (${which}) failed: exit ${m.code} ${m.stdout}`);
      return { rate: COUNT / m.seconds, inner: summary.emailsPerSecond, cpu: m.cpu };
    };
    for (const which of otherBin ? [bin, otherBin] : [bin]) {
      await reset();
      const w = await timed(process.execPath, [which, 'batch', warmup, '--json'], freshState());
      if (w.code !== 0) throw new Error(`warm-up run (${which}) failed: exit ${w.code} ${w.stderr}`);
    }
    for (let r = 0; r < rounds; r++) {
      // With --against, the two CLIs take turns going first.
      if (otherBin && r % 2 === 1) other.push(await runCli(otherBin));
      cli.push(await runCli(bin));
      if (otherBin && r % 2 === 0) other.push(await runCli(otherBin));

      await reset();
      const bodies = join(dir, `bodies-${r}.ndjson`);
      const lines = [];
      for (let i = 0; i < COUNT; i += SIZE) {
        const emails = [];
        for (let n = i; n < i + SIZE; n++) emails.push(email(n, `ceiling-${r}-${n}`));
        lines.push(JSON.stringify({ emails }));
      }
      writeFileSync(bodies, `${lines.join('\n')}\n`);
      const c = await timed(process.execPath, [self, '--ceiling', bodies, String(CONCURRENCY)], env);
      if (c.code !== 0 || JSON.parse(c.stdout).accepted !== COUNT) throw new Error(`ceiling run failed: exit ${c.code} ${c.stderr}`);
      ceil.push({ rate: COUNT / c.seconds, cpu: c.cpu });
      console.log(
        `  round ${r + 1}: mailroom ${Math.round(cli[r].rate)} emails/s (its own count ${Math.round(cli[r].inner)}/s, CPU ${cli[r].cpu.toFixed(2)} s), ` +
          `ceiling ${Math.round(ceil[r].rate)} emails/s (CPU ${ceil[r].cpu.toFixed(2)} s), ratio ${(cli[r].rate / ceil[r].rate).toFixed(2)}` +
          (otherBin ? `; ${against} ${Math.round(other[r].rate)} emails/s (CPU ${other[r].cpu.toFixed(2)} s), ratio ${(cli[r].rate / other[r].rate).toFixed(2)}` : ''),
      );
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const mr = median(cli.map((x) => x.rate));
    const cr = median(ceil.map((x) => x.rate));
    console.log(`  mailroom batch (spawned CLI):            ${Math.round(mr).toLocaleString('en-US')} emails/s`);
    console.log(`  ceiling (prebuilt bodies, undici):       ${Math.round(cr).toLocaleString('en-US')} emails/s`);
    console.log(`  ratio: ${(mr / cr).toFixed(2)}x of the ceiling (target >= 1.0x); median of the paired rounds' ratios ${median(cli.map((x, i) => x.rate / ceil[i].rate)).toFixed(2)}x`);
    if (otherBin) {
      const or = median(other.map((x) => x.rate));
      console.log(`  against ${against}: ${Math.round(or).toLocaleString('en-US')} emails/s; ratio ${(mr / or).toFixed(2)}x; median of the paired rounds' ratios ${median(cli.map((x, i) => x.rate / other[i].rate)).toFixed(2)}x; CPU seconds (medians) ${median(cli.map((x) => x.cpu)).toFixed(2)} against ${median(other.map((x) => x.cpu)).toFixed(2)}`);
    }
    console.log(`  (machine load average at the end: ${(await import('node:os')).loadavg()[0].toFixed(2)} on ${(await import('node:os')).cpus().length} cores; other load makes rounds vary)`);

    if (!memory) return;
    console.log('peak RSS of the CLI (VmHWM via /usr/bin/time -f %M):');
    const small = join(dir, 'small.ndjson');
    const large = join(dir, 'large.ndjson');
    await writeNdjson(small, 10_000);
    await writeNdjson(large, 1_000_000);
    const peak = async (args) => {
      const r = await timed(process.execPath, [bin, ...args], freshState());
      const kb = Number(/PEAK_KB=(\d+)/.exec(r.stderr)?.[1]);
      if (r.code !== 0 || !kb) throw new Error(`run failed: exit ${r.code} ${r.stderr.slice(-500)}`);
      return { mb: kb / 1024, seconds: r.seconds, summary: JSON.parse(r.stdout) };
    };
    const drySmall = await peak(['batch', small, '--dry-run', '--json']);
    const dryLarge = await peak(['batch', large, '--dry-run', '--json']);
    report('dry run', 10_000, drySmall, 1_000_000, dryLarge);

    const real = join(dir, 'real.ndjson');
    await writeNdjson(real, realLarge);
    await reset();
    const realSmall = await peak(['batch', input, '--json']);
    await reset();
    const realBig = await peak(['batch', real, '--json']);
    if (realBig.summary.sent !== realLarge) throw new Error(`large real run sent ${realBig.summary.sent}`);
    report(realLarge < 1_000_000 ? `real run (large reduced to ${realLarge.toLocaleString('en-US')})` : 'real run', COUNT, realSmall, realLarge, realBig);
  } finally {
    sandbox.kill();
    await once(sandbox, 'close');
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(label, n1, a, n2, b) {
  const f = (n) => n.toLocaleString('en-US');
  console.log(
    `  ${label}: ${f(n1)} entries ${a.mb.toFixed(1)} MB (${a.seconds.toFixed(1)} s), ${f(n2)} entries ${b.mb.toFixed(1)} MB (${b.seconds.toFixed(1)} s); ` +
      `ratio ${(b.mb / a.mb).toFixed(2)}x (targets <= 150 MB, <= 1.25x)`,
  );
}

async function writeNdjson(path, count) {
  const out = createWriteStream(path);
  let buf = '';
  for (let n = 0; n < count; n++) {
    buf += `${JSON.stringify(email(n))}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

/** Runs a command to its end: wall seconds, and CPU seconds (user + sys) from /usr/bin/time. */
function timed(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', 'CPU_S=%U+%S PEAK_KB=%M', cmd, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const cpu = /CPU_S=([\d.]+)\+([\d.]+)/.exec(stderr);
      resolve({ code, stdout, stderr, seconds: Number(process.hrtime.bigint() - start) / 1e9, cpu: cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN });
    });
  });
}

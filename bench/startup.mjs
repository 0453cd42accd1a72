// Start-up time of mailroom, measured in one run as ratios: `--help` to `node -e 0` (target <= 1.1x),
// and `check -q` to the undici floor, the fastest bare script making the same check request with
// undici (Node's fetch, with and without the wasm flag mailroom sets, or the undici package; target
// <= 1.0x). node:http is printed beside them for reference. `check` talks to a loopback API:
// `mailroom sandbox` when it starts, else a tiny stand-in server answering the check endpoint. Run
// `npm run build` first.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstJsonLine, median, startStandIn, time } from './measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'mailroom.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TARGETS = { help: 1.1 };
const CHECK_TARGET = 1.0;

async function startApi() {
  const sandbox = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const info = await firstJsonLine(sandbox);
    if (info.baseUrl && info.apiKey) return { ...info, kind: 'mailroom sandbox', child: sandbox };
  } catch {
    // fall through to the stand-in
  }
  sandbox.kill();
  return { ...(await startStandIn()), kind: 'stand-in node:http server' };
}

const api = await startApi();
const configDir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
// A code cache of its own (bin/mailroom.js `runFast`), made by the warm-up run below, as a user's
// first `check` makes theirs.
const env = { PATH: process.env.PATH, HOME: process.env.HOME, MAILROOM_CONFIG_DIR: configDir, MAILROOM_CACHE_DIR: join(configDir, 'code-cache'), MAILROOM_API_KEY: api.apiKey, MAILROOM_BASE_URL: api.baseUrl };
// References measured in the same run: the same check request made by a bare script, with node:http
// (what an axios/http-based SDK does), with Node's global fetch, and with the whole undici package.
const get = (call) => `const url = process.env.MAILROOM_BASE_URL + '/v1/api-keys/check'; const headers = { authorization: 'Bearer ' + process.env.MAILROOM_API_KEY }; ${call}`;
const cases = {
  node: ['-e', '0'],
  help: [BIN, '--help'],
  check: [BIN, 'check', '-q'],
  http: ['-e', get("require('node:http').get(url, { headers }, (res) => { res.resume(); res.on('end', () => process.exit(res.statusCode === 200 ? 0 : 3)); });")],
  fetch: ['-e', get('fetch(url, { headers }).then(async (r) => { await r.text(); process.exit(r.ok ? 0 : 3); });')],
  // Node's fetch is undici too; with the wasm flag mailroom sets, it no longer waits for TurboFan at exit.
  fetchLiftoff: ['-e', get("require('node:v8').setFlagsFromString('--liftoff-only'); fetch(url, { headers }).then(async (r) => { await r.text(); process.exit(r.ok ? 0 : 3); });")],
  undici: ['-e', get(`const { request } = require(${JSON.stringify(join(ROOT, 'node_modules', 'undici'))}); request(url, { headers }).then(async (r) => { await r.body.text(); process.exit(r.statusCode === 200 ? 0 : 3); });`)],
};
const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
try {
  for (const args of Object.values(cases)) time(args, env); // warm the file cache (and make check's code cache)
  for (let i = 0; i < RUNS; i++) {
    for (const [name, args] of Object.entries(cases)) samples[name].push(time(args, env));
  }
} finally {
  api.child.kill();
  rmSync(configDir, { recursive: true, force: true });
}

// The median is the figure; the minimum shows what an unloaded machine gives (others share the cores).
const base = median(samples.node);
const baseMin = Math.min(...samples.node);
console.log(`startup, median of ${RUNS} interleaved runs (min in brackets); check against a ${api.kind} on loopback, key from MAILROOM_API_KEY`);
console.log(`  node -e 0            ${base.toFixed(1)} ms   1.00x   [${baseMin.toFixed(1)} ms]`);
const LABELS = { help: 'mailroom --help', check: 'mailroom check -q', http: 'node:http GET', fetch: 'global fetch GET', fetchLiftoff: 'fetch, liftoff only', undici: 'undici package GET' };
for (const [name, label] of Object.entries(LABELS)) {
  if (name === 'http') console.log('  the same check request from a bare script (references):');
  const m = median(samples[name]);
  const min = Math.min(...samples[name]);
  const ratio = m / base;
  const verdict = name in TARGETS ? `  target <= ${TARGETS[name]}x: ${ratio <= TARGETS[name] ? 'met' : 'MISSED'}` : '';
  console.log(`  ${label.padEnd(20)} ${m.toFixed(1)} ms   ${ratio.toFixed(2)}x   [${min.toFixed(1)} ms, ${(min / baseMin).toFixed(2)}x]${verdict}`);
}
const check = median(samples.check);
console.log(
  `  mailroom check vs references: ${(check / median(samples.http)).toFixed(2)}x node:http, ${(check / median(samples.fetch)).toFixed(2)}x fetch, ` +
    `${(check / median(samples.fetchLiftoff)).toFixed(2)}x fetch with --liftoff-only, ${(check / median(samples.undici)).toFixed(2)}x undici package`,
);
const [floorName, floor] = ['fetch', 'fetchLiftoff', 'undici'].map((name) => [name, median(samples[name])]).sort((a, b) => a[1] - b[1])[0];
const vsFloor = check / floor;
console.log(`  mailroom check vs the undici floor (${LABELS[floorName]}): ${vsFloor.toFixed(2)}x  target <= ${CHECK_TARGET}x: ${vsFloor <= CHECK_TARGET ? 'met' : 'MISSED'}`);

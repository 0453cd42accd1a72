// Import cost of the library entry (`import { Mailroom } from 'mailroom-cli'`) against the CLI's
// `check` path, measured in one run, interleaved (issue 14 target: the import costs no more than
// `mailroom check -q`). Also shown: the library making the same check request. Run `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, startStandIn, time } from './measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'mailroom.js');
const ENTRY = pathToFileURL(join(ROOT, 'dist', 'index.js')).href;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

// The check endpoint on loopback, answered by a bare node:http server (bench/measure.mjs).
const api = await startStandIn();
const server = api.child;

const configDir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, MAILROOM_CONFIG_DIR: configDir, MAILROOM_API_KEY: api.apiKey, MAILROOM_BASE_URL: api.baseUrl };
const cases = {
  node: ['-e', '0'],
  check: [BIN, 'check', '-q'],
  import: ['--input-type=module', '-e', `await import(${JSON.stringify(ENTRY)});`],
  libraryCheck: ['--input-type=module', '-e', `const { Mailroom } = await import(${JSON.stringify(ENTRY)}); const m = new Mailroom(); await m.apiKeys.check(); await m.close();`],
};
const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
try {
  for (const args of Object.values(cases)) time(args, env); // warm the file cache
  for (let i = 0; i < RUNS; i++) for (const [name, args] of Object.entries(cases)) samples[name].push(time(args, env));
} finally {
  server.kill();
  rmSync(configDir, { recursive: true, force: true });
}

const base = median(samples.node);
const check = median(samples.check);
const LABELS = { node: 'node -e 0', check: 'mailroom check -q', import: "import 'mailroom-cli'", libraryCheck: 'library apiKeys.check()' };
console.log(`library import cost, median of ${RUNS} interleaved runs (min in brackets); check requests go to a node:http stand-in on loopback`);
for (const [name, label] of Object.entries(LABELS)) {
  const m = median(samples[name]);
  console.log(`  ${label.padEnd(24)} ${m.toFixed(1)} ms   ${(m / base).toFixed(2)}x node   ${(m / check).toFixed(2)}x check   [${Math.min(...samples[name]).toFixed(1)} ms]`);
}
const ratio = median(samples.import) / check;
console.log(`  import vs check -q: ${ratio.toFixed(2)}x (target <= 1.00x: ${ratio <= 1 ? 'met' : 'MISSED'})`);

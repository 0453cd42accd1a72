// Import cost of the library entry (`import { Mailroom } from 'mailroom-cli'`) against the CLI's
// `check` path, measured in one run, interleaved (issue 14 target: the import costs no more than
// `mailroom check -q`). Also shown: the library making the same check request. Run `npm run build` first.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'mailroom.js');
const ENTRY = pathToFileURL(join(ROOT, 'dist', 'index.js')).href;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

// The check endpoint on loopback, answered by a bare node:http server (as in bench/startup.mjs).
const STAND_IN = `
const http = require('node:http');
const KEY = 'sk_live_benchbenchbenchbench0000';
const s = http.createServer((req, res) => {
  const ok = req.headers.authorization === 'Bearer ' + KEY;
  res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
  res.end(JSON.stringify(ok ? { status: 'SUCCEED', displayName: 'bench', role: 'API_USER' } : { statusCode: 401, error: 'Unauthorized', message: 'Invalid API key' }));
});
s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ baseUrl: 'http://127.0.0.1:' + s.address().port, apiKey: KEY })));
`;

const server = spawn(process.execPath, ['-e', STAND_IN], { stdio: ['ignore', 'pipe', 'inherit'] });
const api = await new Promise((resolve, reject) => {
  server.stdout.once('data', (d) => resolve(JSON.parse(String(d))));
  server.once('exit', (code) => reject(new Error(`stand-in exited ${code}`)));
});

function time(args, env) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

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

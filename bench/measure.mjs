// What the start-up benchmarks share (imported by bench/startup.mjs and bench/import.mjs; not a
// benchmark itself): a loopback stand-in for the check endpoint, one timed process, the median.
import { spawn, spawnSync } from 'node:child_process';

/** A bare node:http server answering GET /v1/api-keys/check for one key; prints its address as JSON. */
const STAND_IN = `
const http = require('node:http');
const KEY = 'sk_live_benchbenchbenchbench0000';
const s = http.createServer((req, res) => {
  const ok = req.headers.authorization === 'Bearer ' + KEY;
  res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json', 'x-request-id': 'req_bench' });
  res.end(JSON.stringify(ok ? { status: 'SUCCEED', displayName: 'bench', role: 'API_USER' } : { statusCode: 401, error: 'Unauthorized', message: 'Invalid API key' }));
});
s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ baseUrl: 'http://127.0.0.1:' + s.address().port, apiKey: KEY })));
`;

/** Waits for the first line of JSON a child prints on stdout. */
export function firstJsonLine(child, ms = 15_000) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('no JSON line in time')), ms);
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buf.slice(0, nl)));
      } catch (err) {
        reject(err);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}`)));
  });
}

/** Starts the stand-in: `{ baseUrl, apiKey, child }`. */
export async function startStandIn() {
  const child = spawn(process.execPath, ['-e', STAND_IN], { stdio: ['ignore', 'pipe', 'inherit'] });
  return { ...(await firstJsonLine(child)), child };
}

/** Wall time of one `node <args>` run, in ms; throws if it fails. */
export function time(args, env) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// `npm run bench [-- name...]`: runs the benchmarks under bench/ one after another (after the build
// `npm run bench` does first), each in its own process with its output as it prints it, and exits 1
// when any of them failed. Names: startup, import, batch, sandbox, sandbox-memory, sandbox-replay, pacing, listener-stalled, lint, install (default: all, in that order).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ALL = ['startup', 'import', 'batch', 'sandbox', 'sandbox-memory', 'sandbox-replay', 'pacing', 'listener-stalled', 'lint', 'install'];
const names = process.argv.slice(2);
const unknown = names.filter((n) => !ALL.includes(n));
if (unknown.length > 0) {
  console.error(`bench/run.mjs: unknown benchmark ${unknown.join(', ')} (known: ${ALL.join(', ')})`);
  process.exit(2);
}

const failed = [];
for (const name of names.length > 0 ? names : ALL) {
  const script = fileURLToPath(new URL(`./${name}.mjs`, import.meta.url));
  if (!existsSync(script)) throw new Error(`bench/run.mjs: ${script} is missing`);
  console.log(`\n== bench/${name}.mjs`);
  const r = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (r.status !== 0) failed.push(`${name} (${r.signal ?? `exit ${r.status}`})`);
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}

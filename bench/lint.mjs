// `node bench/lint.mjs` (after `npm run build`): `mailroom lint --batch` on personalised bodies (each
// entry's HTML differs by its name), small and large, in one run. Prints each run's wall time, peak
// RSS (VmHWM via /usr/bin/time -f %M) and the ratio between the two sizes: lint checks each body as it
// reads it and keeps a digest of it, so memory should stay about flat while the input grows tenfold.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));
const sizes = (process.argv[2] ?? '1000,10000').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-lint-'));
// About 8 KB of HTML per entry, distinct per entry.
const filler = '<p>' + 'Your order is on its way and will arrive within three to five working days. '.repeat(100) + '</p>';
try {
  const rows = [];
  for (const n of sizes) {
    const file = join(dir, `batch-${n}.ndjson`);
    const lines = [];
    for (let i = 0; i < n; i++) {
      lines.push(JSON.stringify({ from: 'shop@example.com', to: `user${i}@example.com`, subject: 'Your order', html: `<title>Order</title><div style="display:none">Shipped</div><h1>Hello customer ${i}</h1>${filler}<a href="https://example.com/o/${i}">Track</a>` }));
    }
    writeFileSync(file, lines.join('\n') + '\n');
    const t = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, BIN, 'lint', '--batch', file, '-q'], { encoding: 'utf8' });
    const ms = performance.now() - t;
    if (r.status !== 0 && r.status !== 10) throw new Error(`lint exited ${r.status}: ${r.stderr}`);
    const kb = Number(r.stderr.trim().split('\n').at(-1));
    rows.push({ n, mb: statSync(file).size / 1e6, ms, rssMb: kb / 1024 });
  }
  for (const row of rows) console.log(`${String(row.n).padStart(7)} entries (${row.mb.toFixed(0)} MB): ${(row.ms / 1000).toFixed(1)} s, ${(row.n / (row.ms / 1000)).toFixed(0)} entries/s, peak RSS ${row.rssMb.toFixed(0)} MB`);
  const [a, b] = [rows[0], rows.at(-1)];
  console.log(`peak RSS ratio ${b.n}/${a.n} entries: ${(b.rssMb / a.rssMb).toFixed(2)}x for ${(b.n / a.n).toFixed(0)}x the input`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

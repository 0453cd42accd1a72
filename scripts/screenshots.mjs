// Regenerates the screenshots of docs/sandbox-inbox.md: runs the browser tests' layout test (the
// same Chromium run that checks the 1280 and 375 px layouts) with MAILROOM_SCREENSHOTS_DIR set.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../docs/img/', import.meta.url));
const run = spawnSync('npx', ['vitest', 'run', '--project', 'browser', '-t', 'layout at 1280 and 375'], {
  stdio: 'inherit',
  env: { ...process.env, MAILROOM_SCREENSHOTS_DIR: dir },
});
if (run.status !== 0) process.exit(run.status ?? 1);
for (const name of readdirSync(dir).filter((f) => f.endsWith('.png')).sort()) process.stdout.write(`docs/img/${name}\n`);

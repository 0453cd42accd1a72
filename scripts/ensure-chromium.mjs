// The browser tests drive the system's Chromium (playwright-core never downloads one). Installs the
// Debian package when it is missing and this is root on a Debian-like system (CI); otherwise says so,
// and the browser tests skip with a visible message.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromium = process.env.MAILROOM_CHROMIUM ?? '/usr/bin/chromium';
if (existsSync(chromium)) process.exit(0);

const apt = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
const canInstall = typeof process.getuid === 'function' && process.getuid() === 0 && existsSync('/usr/bin/apt-get') && !process.env.MAILROOM_CHROMIUM;
if (canInstall) {
  process.stderr.write(`ensure-chromium: ${chromium} missing; apt-get install -y chromium\n`);
  if (apt(['install', '-y', '--no-install-recommends', 'chromium']) || (apt(['update']) && apt(['install', '-y', '--no-install-recommends', 'chromium']))) process.exit(0);
}
process.stderr.write(`ensure-chromium: no Chromium at ${chromium} and it cannot be installed here; the browser tests will be skipped\n`);

import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/**
 * Headless Chromium from the system's packages (Debian: `apt-get install chromium`), driven by
 * playwright-core, which never downloads a browser. `scripts/ensure-chromium.mjs` installs it when
 * missing (CI); where it cannot be, the browser tests are skipped with a visible message.
 */
export const CHROMIUM = process.env.MAILROOM_CHROMIUM ?? '/usr/bin/chromium';

export const chromiumMissing = !existsSync(CHROMIUM);

if (chromiumMissing) {
  process.stderr.write(`\n*** browser tests SKIPPED: no Chromium at ${CHROMIUM} (run: node scripts/ensure-chromium.mjs, or set MAILROOM_CHROMIUM) ***\n\n`);
}

/** Playwright gives every launch a fresh temporary profile (user data dir) and removes it on close. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// A real terminal (stderr's notice and stdout on one pty); every other api and --sandbox case runs
// in-process in test/cli/api.test.ts.
describe('global --sandbox', () => {
  it('wins over stored and environment credentials, with provenance "sandbox", and says so on a terminal', async () => {
    const r = await runCli(['check', '--sandbox', '--json'], { env: { MAILROOM_API_KEY: 'sk_live_wrongwrongwrongwrong', MAILROOM_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'SUCCEED', keySource: 'sandbox', keyOrigin: '--sandbox' });
    expect(out.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const tty = await runCli(['check', '--sandbox', '--no-color'], { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/^mailroom: using a throw-away local sandbox at http:\/\/127\.0\.0\.1:\d+; nothing is really sent$/m);
    expect(tty.stdout).toMatch(/^key from\s+sandbox$/m);
  });
});

import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';

describe('a named profile that is not stored', () => {
  it('doctor fails its profile line with exit 2 (every API command refuses it), even with a key in the environment', async () => {
    const r = await runInProcess(['--profile', 'nope', 'doctor'], { env: { MAILROOM_API_KEY: 'sk_live_envenvenvenvenv1', MAILROOM_BASE_URL: 'http://127.0.0.1:9', MAILROOM_STATE_DIR: '/nonexistent-state', NO_COLOR: '1' }, tty: { stdout: true } });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^fail +profile +no profile "nope" in the config store \(there are none yet\)$/m);
    expect(r.stdout).not.toMatch(/key check/);
  });
});

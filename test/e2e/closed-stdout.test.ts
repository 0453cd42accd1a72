import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

/** `mailroom … | true`: the reader is gone before mailroom writes; bash reports mailroom's own exit code. */
function intoClosedPipe(args: string[]) {
  const line = `${[process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')} 2>&1 >&3 3>&- | cat; exit "\${PIPESTATUS[0]}"`;
  // stdout goes to fd 3, a pipe whose reader (`true`) has exited; stderr is what `cat` collects.
  const r = spawnSync('bash', ['-c', `exec 3> >(true); sleep 0.1; ${line}`], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
  return { code: r.status, stderr: r.stdout + r.stderr };
}

describe('stdout closed by its reader (mailroom … | head -1)', () => {
  it.each([[['--help']], [['--version']], [['webhooks', 'events']], [['webhooks', 'sample', 'CONTACT_CREATED']], [['--json', 'webhooks', 'events']]])(
    '%j exits with its own code and no stack trace',
    (args) => {
      const { code, stderr } = intoClosedPipe(args);
      expect(stderr).not.toMatch(/EPIPE|at .*\(node:/);
      expect(code).toBe(0);
    },
  );

  it('a usage error still exits 2 with its one line', () => {
    const { code, stderr } = intoClosedPipe(['webhooks', 'sample', 'NOPE']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^mailroom: unknown event NOPE/);
    expect(stderr).not.toMatch(/EPIPE/);
  });
});

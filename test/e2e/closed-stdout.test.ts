import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv } from '../helpers/cli.js';

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

describe('stdout that cannot be written (mailroom … > /dev/full)', () => {
  /** stdout on /dev/full (every write fails ENOSPC), stderr captured. */
  function intoFullDisk(args: string[]) {
    const fd = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [BIN, ...args], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', env: cliEnv() });
      return { code: r.status, stderr: r.stderr };
    } finally {
      closeSync(fd);
    }
  }

  it.each([[['--version']], [['--help']], [['completion', 'zsh']], [['webhooks', 'events', '--json']]])('%j: one line, exit 9 (storage), no stack trace', (args) => {
    const { code, stderr } = intoFullDisk(args);
    expect(stderr).toBe('mailroom: cannot write to stdout: no space left on device\n');
    expect(code).toBe(9);
  });
});

import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Context } from '../src/context.js';
import { buildProgram, commandName } from '../src/program.js';

const ctx: Context = {
  io: { out: new PassThrough(), err: new PassThrough(), in: new PassThrough(), isStdoutTTY: false, isStderrTTY: false, isStdinTTY: false, color: false },
  env: {},
  cwd: process.cwd(),
  signal: new AbortController().signal,
};

/** Every command path with its options and arguments, to compare trees. */
function shape(cmd: Command, path = ''): string[] {
  const here = `${path}${cmd.name()} ${cmd.options.map((o) => o.flags).join(',')} ${cmd.registeredArguments.map((a) => a.name()).join(',')}`;
  return [here, ...cmd.commands.flatMap((c) => shape(c, `${path}${cmd.name()}/`))];
}

describe('commandName', () => {
  it.each([
    [['check', '-q'], 'check'],
    [['--profile', 'ci', 'keys', 'list'], 'keys'],
    [['--api-key', 'sk_live_x', '--timeout', '5', 'send'], 'send'],
    [['--json', '-v', 'webhooks'], 'webhooks'],
    [['--base-url=http://x', 'api', 'GET', '/v1/x'], 'api'],
    [['--help'], undefined],
    [[], undefined],
    [['--', 'check'], 'check'],
  ])('%j → %s', (args, name) => {
    expect(commandName(args)).toBe(name);
  });
});

describe('buildProgram with the invoked command only', () => {
  it('builds exactly the same sub-tree for each command as the full tree does', () => {
    const full = buildProgram(ctx);
    for (const cmd of full.commands.filter((c) => c.name() !== 'completion')) {
      const lean = buildProgram(ctx, ['--json', cmd.name()]);
      expect(lean.commands.map((c) => c.name())).toEqual([cmd.name()]);
      expect(shape(lean.commands[0] as Command)).toEqual(shape(cmd));
    }
  });

  it('builds the whole tree for the root help, unknown names and completion', () => {
    const all = buildProgram(ctx).commands.length;
    expect(all).toBeGreaterThanOrEqual(12);
    expect(buildProgram(ctx, ['--help']).commands).toHaveLength(all);
    expect(buildProgram(ctx, ['chek']).commands).toHaveLength(all);
    expect(buildProgram(ctx, ['completion', 'bash']).commands).toHaveLength(all);
    expect(buildProgram(ctx, ['--version', '--help']).commands).toHaveLength(all);
  });

  it('builds no commands for --version alone', () => {
    expect(buildProgram(ctx, ['--version']).commands).toHaveLength(0);
    expect(buildProgram(ctx, ['-V']).commands).toHaveLength(0);
  });
});

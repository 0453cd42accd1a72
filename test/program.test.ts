import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Context } from '../src/context.js';
import { buildProgram, loadProgram, commandName } from '../src/program.js';
import { repeatable } from '../src/commands/shared/repeatable-options.js';

// buildProgram registers the command definitions loaded first (they load on demand).
await loadProgram();

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

describe('a single-value option given twice', () => {
  /** Every command path (names from the root) with its own options, the root's included. */
  function* commands(cmd: Command, path: string[] = []): Generator<[string[], Command]> {
    yield [path, cmd];
    for (const sub of cmd.commands) yield* commands(sub, [...path, sub.name()]);
  }

  async function parse(argv: string[]) {
    let stderr = '';
    const err = new PassThrough();
    err.on('data', (d: Buffer) => (stderr += d.toString()));
    const program = buildProgram({ ...ctx, io: { ...ctx.io, err, out: new PassThrough() } });
    let ran = false;
    for (const [, cmd] of commands(program)) cmd.action(() => void (ran = true));
    const error = await program.parseAsync(['node', 'mailroom', ...argv]).then(
      () => undefined,
      (e: unknown) => e as { exitCode?: number },
    );
    return { error, stderr, ran };
  }

  const cases: [string, string[]][] = [];
  for (const [path, cmd] of commands(buildProgram(ctx))) {
    if (path[0] === 'completion') continue;
    for (const option of cmd.options) {
      if (option.isBoolean() || option.negate || !option.long) continue;
      // The options that collect their values on purpose.
      if (option.parseArg === repeatable) continue;
      const value = option.argChoices?.[0] ?? '1';
      cases.push([`${[...path, option.long].join(' ')}`, [...path, option.long, value, option.long, value]]);
    }
  }

  it('covers the options of every command (send alone has 19); only --property, --var, --event and the fields of api collect', () => {
    const collecting = [...commands(buildProgram(ctx))].flatMap(([path, cmd]) => cmd.options.filter((o) => o.parseArg === repeatable).map((o) => `${path.join(' ')} ${o.long}`));
    expect(collecting.sort()).toEqual(['api --field', 'api --raw-field', 'send --property', 'send --var', 'webhooks create --event', 'webhooks update --event']);
    expect(cases.filter(([name]) => name.startsWith('send ')).length).toBe(19);
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases)('%s: exit 2 naming it, the command never runs', async (_name, argv) => {
    const flag = argv.find((a) => a.startsWith('--'))!;
    const { error, stderr, ran } = await parse(argv);
    expect(ran).toBe(false);
    expect(error?.exitCode).toBe(2);
    expect(stderr).toMatch(new RegExp(`^mailroom: ${flag} was given more than once; give it once\\b.*\\n$`));
  });

  it('--to says to use batch for many recipients', async () => {
    const { stderr } = await parse(['send', '--to', 'a@example.com', '--to', 'b@example.com']);
    expect(stderr).toBe('mailroom: --to was given more than once; give it once (an email has one recipient: to send to many, use `mailroom batch`)\n');
  });

  it('repeatable options still collect every value', async () => {
    const { error, ran } = await parse(['send', '--property', 'a=1', '--property', 'b=2', '--var', 'x=1', '--var', 'y=2']);
    expect(error).toBeUndefined();
    expect(ran).toBe(true);
  });
});

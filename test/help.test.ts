import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Context } from '../src/context.js';
import { isMailroomError } from '../src/errors.js';
import { EXIT, EXIT_MEANINGS, exitCodeOf } from '../src/exit-codes.js';
import { buildProgram, loadProgram, runCommandLine } from '../src/program.js';

// buildProgram registers the command definitions loaded first (they load on demand).
await loadProgram();

interface Shown {
  out: string;
  err: string;
  /** Commander's code when it stopped by throwing (help, usage errors), else undefined. */
  code: string | undefined;
  error: unknown;
}

/** Runs the command line in-process, as main.ts does, with stdout a terminal of `columns` (or a pipe). */
async function show(args: string[], columns?: number): Promise<Shown> {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) => Object.assign(new PassThrough(), { write: (s: string) => (append(s), true) });
  const tty = columns !== undefined;
  const ctx: Context = {
    io: {
      out: sink((s) => (out += s)),
      err: sink((s) => (err += s)),
      in: new PassThrough(),
      isStdoutTTY: tty,
      isStderrTTY: tty,
      isStdinTTY: false,
      color: false,
      outColumns: columns,
      errColumns: columns,
    },
    env: {},
    cwd: process.cwd(),
    signal: new AbortController().signal,
  };
  let code: string | undefined;
  let error: unknown;
  try {
    await runCommandLine(ctx, args);
  } catch (e) {
    error = e;
    code = (e as { code?: string }).code;
  }
  return { out, err, code, error };
}

function paths(cmd: Command, path: string[] = []): string[][] {
  return [path, ...cmd.commands.flatMap((sub) => paths(sub, [...path, sub.name()]))];
}

const quietCtx: Context = {
  io: { out: new PassThrough(), err: new PassThrough(), in: new PassThrough(), isStdoutTTY: false, isStderrTTY: false, isStdinTTY: false, color: false },
  env: {},
  cwd: process.cwd(),
  signal: new AbortController().signal,
};
const ALL = paths(buildProgram(quietCtx));
const GROUPS = ALL.filter((p) => ['', 'keys', 'webhooks', 'config'].includes(p.join(' ')));

const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));

describe('help fits the terminal', () => {
  it.each([50, 80, 200])('at %i columns no help line is wider than the terminal, or 80', async (columns) => {
    const limit = Math.min(columns, 80);
    const tooWide: string[] = [];
    for (const path of ALL) {
      const { out, code } = await show([...path, '--help'], columns);
      expect(code, path.join(' ')).toBe('commander.helpDisplayed');
      for (const line of out.split('\n')) if (line.length > limit) tooWide.push(`${path.join(' ')}: ${line}`);
    }
    for (const topic of ['environment', 'exit-codes']) {
      const { out } = await show(['help', topic], columns);
      for (const line of out.split('\n')) if (line.length > limit) tooWide.push(`help ${topic}: ${line}`);
    }
    expect(tooWide).toEqual([]);
  });

  it('through a pipe help is 80 columns at most, and the same as on a wide terminal', async () => {
    for (const path of [[], ['send'], ['webhooks', 'listen'], ['keys', 'rotate']]) {
      const piped = await show([...path, '--help']);
      expect(widest(piped.out)).toBeLessThanOrEqual(80);
      expect((await show([...path, '--help'], 200)).out).toBe(piped.out);
    }
  });

  it('at 50 columns option descriptions are wrapped, not left running past the edge', async () => {
    const { out } = await show(['webhooks', 'listen', '--help'], 50);
    const at80 = await show(['webhooks', 'listen', '--help'], 80);
    expect(widest(out)).toBeLessThanOrEqual(50);
    // Every word of the wide help is still there.
    const words = (s: string) => s.split(/\s+/).filter((w) => w !== '' && w !== '\\').sort();
    expect(words(out)).toEqual(words(at80.out));
  });

  it('a long example command is continued with a backslash, so it still pastes into a shell', async () => {
    const { out } = await show(['webhooks', '--help'], 50);
    expect(out).toMatch(/\$ mailroom webhooks listen .*\\\n {6}\S/);
  });
});

describe('mailroom help [command...] and bare groups', () => {
  it.each([
    [['help'], ['--help']],
    [['help', 'send'], ['send', '--help']],
    [['help', 'keys'], ['keys', '--help']],
    [['help', 'keys', 'list'], ['keys', 'list', '--help']],
    [['keys', 'help', 'list'], ['keys', 'list', '--help']],
    [['keys', 'help'], ['keys', '--help']],
    [['webhooks', 'help', 'listen'], ['webhooks', 'listen', '--help']],
    [['sandbox', 'help', 'trigger'], ['sandbox', 'trigger', '--help']],
    [['help', 'config', 'set'], ['config', 'set', '--help']],
  ])('%j prints what %j prints, on stdout', async (args, same) => {
    const got = await show(args);
    const want = await show(same);
    expect(got.out).toBe(want.out);
    expect(got.out).toMatch(/^Usage: mailroom/);
    expect(got.err).toBe('');
  });

  it.each(GROUPS.map((p) => [p]))('bare %j prints its help to stdout (as gh does), not to stderr', async (path) => {
    const bare = await show(path);
    expect(bare.err).toBe('');
    expect(bare.out).toBe((await show([...path, '--help'])).out);
    expect(bare.code).toBe('commander.help');
  });

  it('help for something that is neither a command nor a topic is a usage error naming it', async () => {
    for (const args of [['help', 'chek'], ['help', 'keys', 'nosuch'], ['keys', 'help', 'nosuch']]) {
      const { error, out } = await show(args);
      expect(isMailroomError(error) && exitCodeOf(error), args.join(' ')).toBe(EXIT.usage);
      expect((error as Error).message).toContain(`"${args.filter((a) => a !== 'help').join(' ')}"`);
      expect(out).toBe('');
    }
  });
});

describe('global options in sub-command help', () => {
  it('a sub-command lists the inherited global options in a short block', async () => {
    const { out } = await show(['keys', 'list', '--help']);
    const block = /\nGlobal options[^\n]*:\n((?: {2}.*\n)+)/.exec(out)?.[1] ?? '';
    for (const flag of ['--profile', '--api-key', '--base-url', '--workspace', '--sandbox', '--json', '--quiet', '--verbose', '--no-color', '--timeout', '--max-retries']) {
      expect(block, flag).toContain(flag);
    }
    expect(block.split('\n').filter(Boolean).length).toBeLessThanOrEqual(4);
  });

  it('the root help does not repeat them', async () => {
    expect((await show(['--help'])).out).not.toContain('Global options');
  });
});

describe('help topics', () => {
  const sourceFiles = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
    });

  it('`help environment` names every MAILROOM_* variable the code reads, and the precedence', async () => {
    const vars = new Set<string>();
    for (const file of sourceFiles(join(process.cwd(), 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\b(MAILROOM_[A-Z_]+|SMASHSEND_API_KEY)\b/g)) vars.add(m[1] as string);
    }
    vars.delete('MAILROOM_VERSION__'); // a build-time constant, not a variable
    expect(vars.size).toBeGreaterThanOrEqual(9);
    const { out, err } = await show(['help', 'environment']);
    expect(err).toBe('');
    for (const v of vars) expect(out, v).toContain(v);
    expect(out).toMatch(/flag.*environment.*profile.*default/s);
    for (const v of ['NO_COLOR', 'FORCE_COLOR', 'HTTPS_PROXY', 'NO_PROXY']) expect(out).toContain(v);
  });

  it('`help exit-codes` is the code\'s own exit-code map, every code with its meaning', async () => {
    const { out } = await show(['help', 'exit-codes']);
    for (const [kind, code] of Object.entries(EXIT)) {
      expect(out).toMatch(new RegExp(`^ {2}${code} +${kind} +${EXIT_MEANINGS[kind as keyof typeof EXIT].split(' ')[0]}`, 'm'));
    }
    // One column each: every name starts where the others do (130, three digits, too), every meaning too.
    const rows = out.split('\n').filter((l) => /^ {2}\d+ /.test(l));
    expect(new Set(rows.map((l) => l.search(/[a-z]/)))).toHaveProperty('size', 1);
    const meanings = rows.map((l) => l.indexOf(' ', l.search(/[a-z]/)) + l.slice(l.indexOf(' ', l.search(/[a-z]/))).search(/\S/));
    expect(new Set(meanings)).toHaveProperty('size', 1);
  });

  it('the root help\'s exit-code line comes from the same map and points to the topic', async () => {
    const out = (await show(['--help'])).out.replace(/\s+/g, ' ');
    expect(out).toContain(Object.entries(EXIT).map(([kind, code]) => `${code} ${kind}`).join(', '));
    expect(out).toContain('mailroom help exit-codes');
    expect(out).toContain('mailroom help environment');
  });
});

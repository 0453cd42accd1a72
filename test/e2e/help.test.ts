import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { HelpCatalog } from '../../src/build/help-catalog.js';
import { BIN, ROOT } from '../helpers/cli.js';

const catalog = JSON.parse(readFileSync(join(ROOT, 'dist', 'help.json'), 'utf8')) as HelpCatalog;
const MAIN = join(ROOT, 'dist', 'main.js');
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

function node(script: string, args: string[]) {
  const r = spawnSync(process.execPath, [script, ...args], { env, encoding: 'utf8' });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

/** Runs a shell command line on a pseudo-terminal of the given width; returns what it showed. */
function onTerminal(columns: number, args: string[], script = BIN): string {
  const line = `stty cols ${columns}; ${[process.execPath, script, ...args].map((a) => `'${a}'`).join(' ')}`;
  const r = spawnSync('script', ['-qfec', line, '/dev/null'], { env: { ...env, TERM: 'xterm' }, encoding: 'utf8' });
  return r.stdout.replace(/\r\n/g, '\n');
}

describe('help and version from dist/help.json (bin/mailroom.js answers without loading the CLI)', () => {
  const screens = Object.entries(catalog.screens);

  it('has a screen for the root, its bare form, and every command', () => {
    expect(screens.length).toBeGreaterThanOrEqual(35);
    for (const key of ['', '--help', 'send --help', 'batch --help', 'check --help', 'keys rotate --help', 'webhooks listen --help', 'sandbox trigger --help', 'api --help']) {
      expect(catalog.screens[key], key).toBeDefined();
    }
    expect(catalog.screens['--help']?.out).toMatch(/^Usage: mailroom \[options\] \[command\]/);
    expect(catalog.screens['send --help']?.out).toContain('Examples:');
  });

  it('every command\'s help shows examples', () => {
    const without = screens.filter(([key]) => !key.startsWith('help ')).filter(([, screen]) => !/\nExamples:\n(?: {2}# .*\n)* {2}\$ .*mailroom /.test(screen.out + screen.err)).map(([key]) => key);
    expect(without).toEqual([]);
  });

  it.each(screens)('%j prints exactly what the full program prints, on the same streams, exit 0', (key) => {
    const args = key === '' ? [] : key.split(' ');
    const fast = node(BIN, args);
    const full = node(MAIN, args);
    expect(fast).toEqual(full);
    expect(fast.code).toBe(0);
    if (args.at(-1) === '--help') {
      // -h is the same request as --help.
      expect(node(BIN, [...args.slice(0, -1), '-h'])).toEqual(full);
    }
  });

  it.each([
    [['help'], '--help'],
    [['help', 'send'], 'send --help'],
    [['help', 'keys', 'list'], 'keys list --help'],
    [['keys', 'help', 'list'], 'keys list --help'],
    [['webhooks', 'help'], 'webhooks --help'],
    [['help', 'sandbox', 'trigger'], 'sandbox trigger --help'],
    [['help', 'exit-codes'], 'help exit-codes'],
  ])('%j prints the %j screen on stdout, exit 0, from the catalog and from the full program alike', (args, key) => {
    const screen = catalog.screens[key];
    expect(screen?.out).toMatch(/\S/);
    const want = { stdout: screen?.out, stderr: '', code: 0 };
    expect(node(BIN, args)).toEqual(want);
    expect(node(MAIN, args)).toEqual(want);
  });

  it('bare `mailroom` and a bare group print their help to stdout with exit 0 (gh does), so `mailroom | less` works', () => {
    for (const [args, key] of [[[], '--help'], [['keys'], 'keys --help'], [['webhooks'], 'webhooks --help'], [['config'], 'config --help']] as const) {
      const want = { stdout: catalog.screens[key]?.out, stderr: '', code: 0 };
      expect(node(BIN, [...args]), key).toEqual(want);
      expect(node(MAIN, [...args]), key).toEqual(want);
    }
  });

  it('help for an unknown command or topic is one usage line, exit 2', () => {
    const r = node(BIN, ['help', 'chek']);
    expect(r).toEqual({ stdout: '', stderr: expect.stringMatching(/^mailroom: no help for "chek": not a command or a help topic\n/), code: 2 });
  });

  it('--version and -V print the package version', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) expect(node(BIN, [flag])).toEqual({ stdout: `${version}\n`, stderr: '', code: 0 });
  });

  describe('the full program, when it prints help itself (options before --help, a narrow terminal)', () => {
    // esbuild names each module by its path from the checkout: `../main/node_modules/…` in a git worktree.
    const HEAVY = /^\/\/ (?:\S*\/)?(node_modules\/(undici|zod|fastify|conf)\/|src\/sandbox\/)/m;

    /** The bundle files a run of dist/main.js loads that hold undici, zod, conf or the sandbox. */
    function heavyModules(args: string[], extraEnv: Record<string, string> = {}, heavy = HEAVY): string[] {
      const dir = mkdtempSync(join(tmpdir(), 'mailroom-modules-'));
      const list = join(dir, 'modules.txt');
      try {
        const r = spawnSync(process.execPath, ['--import', join(ROOT, 'test', 'fixtures', 'record-modules.mjs'), MAIN, ...args], {
          env: { ...env, ...extraEnv, MAILROOM_TEST_MODULES_FILE: list },
          encoding: 'utf8',
        });
        expect(r.error).toBeUndefined();
        const files = readFileSync(list, 'utf8')
          .split('\n')
          .filter((url) => url.startsWith('file:') && url.includes('/dist/'))
          .map((url) => fileURLToPath(url));
        return files.filter((file) => heavy.test(readFileSync(file, 'utf8'))).map((file) => file.slice(ROOT.length));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    it.each(screens.map(([key]) => [key]))('%j loads no undici, zod, conf or sandbox code', (key) => {
      const args = key === '' ? [] : key.split(' ');
      expect(heavyModules(['--json', ...args])).toEqual([]);
    });

    it('a command without --sandbox loads no sandbox or fastify code (both are bundled into dist/)', () => {
      const sandbox = /^\/\/ (node_modules\/(fastify|pino|avvio|find-my-way)\/|src\/sandbox\/)/m;
      const env = { MAILROOM_API_KEY: 'sk_live_modules_test', MAILROOM_BASE_URL: 'http://127.0.0.1:1' };
      expect(heavyModules(['--max-retries', '0', 'check', '-q'], env, sandbox)).toEqual([]);
      expect(heavyModules(['--sandbox', 'check', '-q'], {}, sandbox).length).toBeGreaterThan(0);
    });

    it('(the check above sees a command that does load them)', () => {
      expect(heavyModules(['--max-retries', '0', 'check', '-q'], { MAILROOM_API_KEY: 'sk_live_modules_test', MAILROOM_BASE_URL: 'http://127.0.0.1:1' }).length).toBeGreaterThan(0);
    });
  });

  describe('with only bin/ and dist/help.json installed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-help-'));
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
    mkdirSync(join(dir, 'dist'));
    cpSync(join(ROOT, 'dist', 'help.json'), join(dir, 'dist', 'help.json'));
    const bin = join(dir, 'bin', 'mailroom.js');
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('answers help and version itself (the CLI bundle is never loaded)', () => {
      expect(node(bin, ['webhooks', 'verify', '--help'])).toEqual(node(MAIN, ['webhooks', 'verify', '--help']));
      expect(node(bin, ['--version']).code).toBe(0);
    });

    it('hands anything else to dist/main.js: options before --help, unknown commands, a bare group', () => {
      for (const args of [['--json', '--help'], ['chek', '--help'], ['help', 'chek'], ['keys', 'nosuch'], ['check'], ['send', '--to', 'a@example.com', '--help'], ['--version', '--help']]) {
        const r = node(bin, args);
        expect(r.code, args.join(' ')).not.toBe(0);
        expect(r.stderr, args.join(' ')).toMatch(/dist[\\/]main\.js/);
      }
    });
  });

  describe.each([50, 80, 200])('on a terminal of %i columns', (columns) => {
    it.each([['--help'], ['send', '--help'], ['webhooks', '--help'], ['webhooks', 'listen', '--help'], ['keys', 'rotate', '--help'], ['help', 'environment']])(
      '%s %s: no line wider than the terminal (80 at most)',
      (...args) => {
        const shown = onTerminal(columns, args);
        expect(shown).toMatch(/^(Usage: mailroom|Environment variables)/);
        const wide = shown.split('\n').filter((l) => l.length > Math.min(columns, 80));
        expect(wide).toEqual([]);
      },
    );
  });

  describe('on a terminal', () => {
    it('a wide terminal gets the 80-column help the catalog holds', () => {
      expect(onTerminal(200, ['keys', '--help'])).toBe(catalog.screens['keys --help']?.out);
    });

    it('a narrow terminal gets help wrapped to its width by the full program', () => {
      const shown = onTerminal(50, ['keys', '--help']);
      expect(shown).toBe(onTerminal(50, ['keys', '--help'], MAIN));
      expect(shown).toContain('Usage: mailroom keys [options] [command]');
      expect(shown).not.toBe(catalog.screens['keys --help']?.out);
      expect(shown).toContain('\nlist, create, update, delete and rotate workspace\nAPI keys\n');
    });
  });
});

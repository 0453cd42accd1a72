import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { HelpCatalog } from '../../src/help-catalog.js';
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
    const without = screens.filter(([, screen]) => !/\nExamples:\n {2}\$ .*mailroom /.test(screen.out + screen.err)).map(([key]) => key);
    expect(without).toEqual([]);
  });

  it.each(screens)('%j prints exactly what the full program prints, on the same streams, exit 0', (key) => {
    const args = key === '' ? [] : key.split(' ');
    const fast = node(BIN, args);
    const full = node(MAIN, args);
    expect(fast).toEqual(full);
    expect(fast.code).toBe(0);
    if (args.length > 0) {
      // -h is the same request as --help.
      expect(node(BIN, [...args.slice(0, -1), '-h'])).toEqual(full);
    }
  });

  it('--version and -V print the package version', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) expect(node(BIN, [flag])).toEqual({ stdout: `${version}\n`, stderr: '', code: 0 });
  });

  describe('the full program, when it prints help itself (options before --help, a narrow terminal)', () => {
    const HEAVY = /^\/\/ (node_modules\/(undici|zod|fastify|conf)\/|src\/sandbox\/)/m;

    /** The bundle files a run of dist/main.js loads that hold undici, zod, conf or the sandbox. */
    function heavyModules(args: string[], extraEnv: Record<string, string> = {}): string[] {
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
        return files.filter((file) => HEAVY.test(readFileSync(file, 'utf8'))).map((file) => file.slice(ROOT.length));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    it.each(screens.map(([key]) => [key]))('%j loads no undici, zod, conf or sandbox code', (key) => {
      const args = key === '' ? [] : key.split(' ');
      expect(heavyModules(['--json', ...args])).toEqual([]);
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
      for (const args of [['--json', '--help'], ['chek', '--help'], ['keys'], ['send', '--to', 'a@example.com', '--help'], ['--version', '--help']]) {
        const r = node(bin, args);
        expect(r.code, args.join(' ')).not.toBe(0);
        expect(r.stderr, args.join(' ')).toMatch(/dist[\\/]main\.js/);
      }
    });
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

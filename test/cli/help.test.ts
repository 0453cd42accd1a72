import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { renderHelpCatalog } from '../../src/build/help-catalog.js';
import { runInProcess, type InProcessResult } from '../helpers/context.js';

// The in-process twin of test/e2e/help.test.ts: bin/mailroom.js's catalog answers against the full
// program, for every screen. The e2e file keeps what only a process shows (the launcher's own
// process, the modules a run loads, a real terminal's width) and checks that dist/help.json is the
// catalog rendered here.

interface LauncherIO {
  readCatalog(): string;
  out(text: string): void;
  err(text: string): void;
  columns(fd: 1 | 2): number | undefined;
}
const { answerFromCatalog, fastBundle } = createRequire(import.meta.url)('../../bin/mailroom.js') as {
  answerFromCatalog(args: string[], io: LauncherIO): boolean;
  fastBundle(args: string[], env: Record<string, string | undefined>): string | undefined;
};

const catalog = await renderHelpCatalog();
const catalogText = JSON.stringify(catalog);

/** What bin/mailroom.js prints from the catalog through a pipe; undefined when it hands the arguments to the CLI. */
function fromCatalog(args: string[]): InProcessResult | undefined {
  let stdout = '';
  let stderr = '';
  const io: LauncherIO = {
    readCatalog: () => catalogText,
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    columns: () => undefined,
  };
  return answerFromCatalog(args, io) ? { stdout, stderr, code: 0 } : undefined;
}

/** `mailroom ...args` as bin/mailroom.js runs it through a pipe: from the catalog when it can, else the full program. */
async function launch(args: string[]): Promise<InProcessResult> {
  return fromCatalog(args) ?? runInProcess(args);
}

describe('help and version from the catalog (bin/mailroom.js answers without loading the CLI)', () => {
  const screens = Object.keys(catalog.screens);

  it.each(screens)('%j prints exactly what the full program prints, on the same streams, exit 0', async (key) => {
    const args = key === '' ? [] : key.split(' ');
    const fast = fromCatalog(args);
    const full = await runInProcess(args);
    expect(fast).toEqual(full);
    expect(fast?.code).toBe(0);
    if (args.at(-1) === '--help') {
      // -h is the same request as --help.
      expect(fromCatalog([...args.slice(0, -1), '-h'])).toEqual(full);
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
  ])('%j prints the %j screen on stdout, exit 0, from the catalog and from the full program alike', async (args, key) => {
    const screen = catalog.screens[key];
    expect(screen?.out).toMatch(/\S/);
    const want = { stdout: screen?.out, stderr: '', code: 0 };
    expect(fromCatalog(args)).toEqual(want);
    expect(await runInProcess(args)).toEqual(want);
  });

  it('bare `mailroom` and a bare group print their help to stdout with exit 0 (gh does), so `mailroom | less` works', async () => {
    for (const [args, key] of [[[], '--help'], [['keys'], 'keys --help'], [['webhooks'], 'webhooks --help'], [['config'], 'config --help']] as const) {
      const want = { stdout: catalog.screens[key]?.out, stderr: '', code: 0 };
      expect(fromCatalog([...args]), key).toEqual(want);
      expect(await runInProcess([...args]), key).toEqual(want);
    }
  });

  // A script's usual flags (--no-color, --json, -q, --profile ci) change nothing in a help screen:
  // `help` followed by them is still a help request, never "unknown command 'help'".
  it.each([
    [['help', 'exit-codes', '--no-color'], 'help exit-codes'],
    [['help', 'exit-codes', '--json'], 'help exit-codes'],
    [['--json', 'help', 'send'], 'send --help'],
    [['help', 'keys', 'list', '-q', '--profile', 'ci'], 'keys list --help'],
    [['help', '--verbose', 'send', '--base-url=http://127.0.0.1:1'], 'send --help'],
  ])('%j with global flags prints the %j screen, exit 0', async (args, key) => {
    expect(await launch(args)).toEqual({ stdout: catalog.screens[key]?.out, stderr: '', code: 0 });
  });

  it('help for an unknown command or topic is one usage line, exit 2', async () => {
    expect(fromCatalog(['help', 'chek'])).toBeUndefined();
    const r = await launch(['help', 'chek']);
    expect(r).toEqual({ stdout: '', stderr: expect.stringMatching(/^mailroom: no help for "chek": not a command or a help topic\n/), code: 2 });
  });
});

describe('the one-file bundles of `check` and `batch` (bin/mailroom.js fastBundle; what they hold: test/e2e/help.test.ts)', () => {
  it('runs a plain check or batch, whatever its own options', () => {
    for (const args of [['batch', 'emails.ndjson'], ['batch', '-', '--json', '--concurrency', '4'], ['batch', 'journals', 'list']]) {
      expect(fastBundle(args, {}), args.join(' ')).toBe('../dist/fast/batch.js');
    }
    for (const args of [['check'], ['check', '-q'], ['check', '--json'], ['check', '--json', 'status,role'], ['check', '--profile', 'ci', '--timeout', '5s', '--allow-http', '--no-color']]) {
      expect(fastBundle(args, {}), args.join(' ')).toBe('../dist/fast/check.js');
    }
  });

  it('leaves to dist/main.js what they do not hold or cannot read for sure: --sandbox, --jq, --verbose (source maps), help, `--`, options before the command, a proxy, MAILROOM_DEBUG, other commands', () => {
    const full = [
      ['check', '--sandbox'],
      ['check', '-q', '--sandbox'],
      ['check', '--jq', '.status'],
      ['check', '--jq=.status'],
      ['check', '--verbose'],
      ['check', '-v'],
      ['check', '--help'],
      ['check', '-h'],
      ['check', 'help'],
      ['check', '--', 'x'],
      ['--json', 'check'],
      ['-q', 'check'],
      ['send', '--to', 'check'],
      ['batch', 'emails.ndjson', '--sandbox'],
      ['batch', 'emails.ndjson', '--jq', '.sent'],
      ['batch', 'emails.ndjson', '-v'],
      ['--profile', 'ci', 'batch', 'emails.ndjson'],
      ['lint', 'email.html'],
      [],
    ];
    for (const args of full) expect(fastBundle(args, {}), args.join(' ')).toBeUndefined();
    for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy']) expect(fastBundle(['check'], { [name]: 'http://proxy.test:3128' }), name).toBeUndefined();
    expect(fastBundle(['check'], { MAILROOM_DEBUG: '1' })).toBeUndefined();
    expect(fastBundle(['check'], { HTTP_PROXY: '', MAILROOM_DEBUG: '0' }), 'empty or off: no proxy, no debugging').toBe('../dist/fast/check.js');
  });
});

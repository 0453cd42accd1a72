import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelpCatalog } from '../../src/build/help-catalog.js';
import { BIN, ROOT } from '../helpers/cli.js';

const catalog = JSON.parse(readFileSync(join(ROOT, 'dist', 'help.json'), 'utf8')) as HelpCatalog;
const MAIN = join(ROOT, 'dist', 'main.js');
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

function node(script: string, args: string[]) {
  const r = spawnSync(process.execPath, [script, ...args], { env, encoding: 'utf8' });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

/** node(), without waiting: several run side by side. */
function nodeAsync(script: string, args: string[], extraEnv: Record<string, string> = {}): Promise<ReturnType<typeof node>> {
  return promisify(execFile)(process.execPath, [script, ...args], { env: { ...env, ...extraEnv }, encoding: 'utf8' }).then(
    (r) => ({ stdout: r.stdout, stderr: r.stderr, code: 0 }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code ?? null }),
  );
}

/** Runs a shell command line on a pseudo-terminal of the given width; returns what it showed. */
async function onTerminal(columns: number, args: string[], script = BIN): Promise<string> {
  const line = `stty cols ${columns}; ${[process.execPath, script, ...args].map((a) => `'${a}'`).join(' ')}`;
  const r = await promisify(execFile)('script', ['-qfec', line, '/dev/null'], { env: { ...env, TERM: 'xterm' }, encoding: 'utf8' });
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

  it('the catalog is the help the program renders now (test/cli/help.test.ts runs the launcher on it)', async () => {
    const { renderHelpCatalog } = await import('../../src/build/help-catalog.js');
    const rendered = await renderHelpCatalog();
    expect(catalog.screens).toEqual(rendered.screens);
    expect(catalog.groups).toEqual(rendered.groups);
  });

  it('the launcher\'s screens equal what the full program prints, on the same streams, exit 0: a command, a bare group, a topic, an alias', async () => {
    // Every screen, alias and bare group is compared in-process in test/cli/help.test.ts.
    const cases = [['send', '--help'], ['keys'], ['help', 'exit-codes'], ['help', 'keys', 'list']];
    const runs = await Promise.all(cases.map((args) => Promise.all([nodeAsync(BIN, args), nodeAsync(MAIN, args)])));
    for (const [i, [fast, full]] of runs.entries()) {
      expect(fast, cases[i]?.join(' ')).toEqual(full);
      expect(fast.code).toBe(0);
      expect(fast.stdout).toMatch(/\S/);
    }
  });

  it('--version and -V print the package version', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) expect(node(BIN, [flag])).toEqual({ stdout: `${version}\n`, stderr: '', code: 0 });
  });

  describe('the full program, when it prints help itself (options before --help, a narrow terminal)', () => {
    // esbuild names each module by its path from the checkout: `../main/node_modules/…` in a git worktree.
    const HEAVY = /^\/\/ (?:\S*\/)?(node_modules\/(undici|zod|fastify|conf|jq-wasm)\/|src\/sandbox\/)/m;

    /** A bundle file and every file it imports statically, as a fresh process would load them. */
    function withStaticImports(file: string, into: Set<string>): Set<string> {
      if (into.has(file)) return into;
      into.add(file);
      for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;()]*?\bfrom\s*"(\.[^"]+)"|^import\s*"(\.[^"]+)"/gm)) {
        withStaticImports(join(dirname(file), (m[1] ?? m[2]) as string), into);
      }
      return into;
    }

    /**
     * For each command line, the bundle files its run of dist/main.js loads. All runs share one process
     * (test/fixtures/run-main-each.mjs): each is a fresh main.js, and Node resolves every dynamic
     * import() again, so a run's list is what it resolved plus those files' static imports (which a
     * module already loaded does not resolve twice). The first run's list is a fresh process's.
     * `required` gets, for each run, the modules it loaded with require() first (native modules).
     */
    function modulesOfEach(commandLines: string[][], extraEnv: Record<string, string> = {}, required: string[][] = []): string[][] {
      const dir = mkdtempSync(join(tmpdir(), 'mailroom-modules-'));
      const list = join(dir, 'modules.txt');
      try {
        const r = spawnSync(
          process.execPath,
          ['--import', join(ROOT, 'test', 'fixtures', 'record-modules.mjs'), join(ROOT, 'test', 'fixtures', 'run-main-each.mjs'), MAIN, ...commandLines.map((args) => JSON.stringify(args))],
          { env: { ...env, ...extraEnv, MAILROOM_TEST_MODULES_FILE: list }, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] },
        );
        expect(r.error).toBeUndefined();
        expect(r.status, r.stderr).toBe(0);
        const runs: string[][] = commandLines.map(() => []);
        const cjs: string[][] = commandLines.map(() => []);
        let n: number | undefined;
        for (const line of readFileSync(list, 'utf8').split('\n')) {
          const marker = /^# (\d+)( exit \d+)?$/.exec(line);
          if (marker) n = marker[2] ? undefined : Number(marker[1]);
          else if (n !== undefined && line.startsWith('file:') && line.includes('/dist/')) runs[n]?.push(fileURLToPath(line));
          else if (n !== undefined && line.startsWith('cjs:')) cjs[n]?.push(line.slice(4));
        }
        required.push(...cjs);
        expect(readFileSync(list, 'utf8').match(/^# \d+ exit /gm)?.length, 'every run ended').toBe(commandLines.length);
        return runs.map((files) => {
          const loaded = new Set<string>();
          for (const file of files) withStaticImports(file, loaded);
          return [...loaded];
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    /** Those of the files that hold undici, zod, conf or the sandbox (or what `heavy` names), from the checkout. */
    const heavyIn = (files: string[] | undefined, heavy = HEAVY): string[] => (files ?? []).filter((file) => heavy.test(readFileSync(file, 'utf8'))).map((file) => file.slice(ROOT.length));

    const helpRuns = screens.map(([key]) => ['--json', ...(key === '' ? [] : key.split(' '))]);
    const check = ['--max-retries', '0', 'check', '-q'];
    const checkEnv = { MAILROOM_API_KEY: 'sk_live_modules_test', MAILROOM_BASE_URL: 'http://127.0.0.1:1' };
    let ofHelp: string[][] = [];
    /** `check`, a help screen, `check` again, in one process. */
    let ofChecks: string[][] = [];
    beforeAll(() => {
      ofHelp = modulesOfEach(helpRuns);
      ofChecks = modulesOfEach([check, ['--json', 'keys', '--help'], check], checkEnv);
    });

    it.each(screens.map(([key], n) => [key, n] as const))('%j loads no undici, zod, conf or sandbox code', (_key, n) => {
      expect(heavyIn(ofHelp[n])).toEqual([]);
    });

    it('a command without --sandbox loads no sandbox or fastify code (both are bundled into dist/)', () => {
      const sandbox = /^\/\/ (node_modules\/(fastify|pino|avvio|find-my-way)\/|src\/sandbox\/)/m;
      expect(heavyIn(ofChecks[0], sandbox)).toEqual([]);
      expect(heavyIn(modulesOfEach([['--sandbox', 'check', '-q']])[0], sandbox).length).toBeGreaterThan(0);
    });

    it('lint loads the caniemail data (@jsx-email/doiuse-email, bundled) only with --clients', () => {
      const doiuse = /^\/\/ (?:\S*\/)?node_modules\/@jsx-email\/doiuse-email\//m;
      const html = join(ROOT, 'test', 'fixtures', 'lint', 'clean.html');
      const [plain, clients] = modulesOfEach([['lint', '-q', html], ['lint', '-q', '--clients', 'gmail', html]]);
      expect(heavyIn(plain, doiuse)).toEqual([]);
      expect(heavyIn(clients, doiuse).length).toBeGreaterThan(0);
    });

    /** The source modules and packages in these bundle files, by the `// path` line esbuild writes above each. */
    function sourcesIn(files: string[] | undefined): string[] {
      const found = new Set<string>();
      for (const file of files ?? []) {
        for (const m of readFileSync(file, 'utf8').matchAll(/^\/\/ (?:\S*\/)?(src\/\S+\.ts|node_modules\/(?:@[^/\s]+\/)?[^/\s]+)/gm)) found.add(m[1]!);
      }
      return [...found].sort();
    }

    /** The modules of check's path in dist/main.js; update it knowingly: each costs every `check` its load (bench/startup.mjs). */
    const CHECK_PATH = [
      'node_modules/commander',
      'node_modules/undici',
      'src/api/paths.ts',
      'src/commands/check.run.ts',
      'src/commands/check.ts',
      'src/commands/context.ts',
      'src/commands/index.ts',
      'src/commands/shared/json-fields.ts',
      'src/commands/shared/option-parsers.ts',
      'src/commands/shared/repeatable-options.ts',
      'src/commands/shared/transport-hints.ts',
      'src/commands/verb.ts',
      // The environment variables of the key, base URL and workspace, one table for the CLI and the library.
      'src/config/environment.ts',
      'src/config/file.ts',
      // Reads a profile's key from the keychain when that key is the one used; the native module
      // itself is required only then (the keychain test below).
      'src/config/keychain.ts',
      'src/config/paths.ts',
      'src/config/settings.ts',
      'src/config/url.ts',
      'src/context.ts',
      'src/errors.ts',
      'src/exit-codes.ts',
      'src/exit.ts',
      'src/files.ts',
      'src/help-layout.ts',
      'src/help-topics.ts',
      'src/input/prompter.ts',
      'src/input/secret-file.ts',
      'src/main.ts',
      'src/output/color.ts',
      'src/output/document.ts',
      'src/output/fields.ts',
      'src/output/mode.ts',
      'src/output/notice.ts',
      'src/output/one-line.ts',
      'src/output/print.ts',
      'src/output/relative-time.ts',
      'src/output/wrap.ts',
      'src/plural.ts',
      'src/program.ts',
      'src/report-error.ts',
      'src/run.ts',
      'src/schema/ids.ts',
      'src/schema/own-field.ts',
      'src/schema/text.ts',
      'src/secrets.ts',
      'src/transport/agent.ts',
      'src/transport/attempt.ts',
      'src/transport/create.ts',
      'src/transport/http-errors.ts',
      'src/transport/http.ts',
      'src/transport/pacer.ts',
      'src/transport/rate-headers.ts',
      'src/transport/retry.ts',
      // The V8 flag the agent sets, recorded for the launcher's code cache (bin/mailroom.js).
      'src/v8-flags.ts',
      'src/version.ts',
    ];

    it('check loads exactly these modules: an import added to its path (start-up time) fails here until listed', () => {
      // What `check` runs on (undici's dispatcher and request API, the transport, the config) and
      // what the program needs to parse its command line: the root options and check's definition
      // alone (src/commands/index.ts loads only the named command's). Update the list knowingly:
      // each module costs every `check` its load (bench/startup.mjs).
      expect(sourcesIn(ofChecks[0])).toEqual(CHECK_PATH);
    });

    /** The dist/ files one run of bin/mailroom.js resolves (relative to dist/); several run side by side. */
    async function distFilesOf(args: string[], extraEnv: Record<string, string> = {}): Promise<string[]> {
      const dir = mkdtempSync(join(tmpdir(), 'mailroom-modules-bin-'));
      try {
        const list = join(dir, 'modules.txt');
        // Its exit code is not the point (a check against a closed port fails): what it loaded is.
        await promisify(execFile)(process.execPath, ['--import', join(ROOT, 'test', 'fixtures', 'record-modules.mjs'), BIN, ...args], {
          env: { ...env, ...checkEnv, MAILROOM_CONFIG_DIR: dir, ...extraEnv, MAILROOM_TEST_MODULES_FILE: list },
        }).catch(() => undefined);
        const urls = readFileSync(list, 'utf8').split('\n').filter((line) => line.startsWith('file:') && line.includes('/dist/'));
        return [...new Set(urls.map((url) => relative(join(ROOT, 'dist'), fileURLToPath(url))))];
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    it('a plain `check` or `batch` runs its dist/fast/ file alone (start-up time: one file to load); --jq, --verbose, --sandbox, options before the command and a proxy run dist/main.js', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mailroom-modules-input-'));
      try {
        const input = join(dir, 'in.ndjson');
        writeFileSync(input, `${JSON.stringify({ from: 'a@example.com', to: 'b@example.com', subject: 'Hi', html: '<p>Hi</p>' })}\n`);
        // A CSV input loads the parser from its own file beside the bundle (and works from there).
        const csv = join(dir, 'in.csv');
        writeFileSync(csv, 'from,to,subject,html\na@example.com,b@example.com,Hi,<p>Hi</p>\n');
        const viaMain = [
          [['check', '-q', '--jq', '.status'], {}],
          [['check', '-q', '--verbose'], {}],
          [['--max-retries', '0', 'check', '-q'], {}],
          [['check', '-q'], { HTTPS_PROXY: 'http://127.0.0.1:1' }],
          [['batch', input, '--dry-run', '--json', '--jq', '.total'], {}],
          [['batch', input, '--dry-run', '-v'], {}],
          [['--json', 'batch', input, '--dry-run'], {}],
        ] as const;
        // Each run is a process of its own: they run side by side (a check retrying against the closed port waits).
        const [[check, checkJson, batch, batchCsv], out, ofMain] = await Promise.all([
          Promise.all([
            distFilesOf(['check', '-q', '--max-retries', '0']),
            distFilesOf(['check', '--json', '--max-retries', '0']),
            distFilesOf(['batch', input, '--dry-run', '--json']),
            distFilesOf(['batch', csv, '--dry-run', '--json']),
          ]),
          nodeAsync(BIN, ['batch', csv, '--dry-run', '--json'], checkEnv),
          Promise.all(viaMain.map(([args, extraEnv]) => distFilesOf([...args], extraEnv))),
        ]);
        expect(check).toEqual(['fast/check.js']);
        expect(checkJson).toEqual(['fast/check.js']);
        expect(batch).toEqual(['fast/batch.js']);
        expect(batchCsv).toEqual(['fast/batch.js', 'fast/vendor/csv-parse.js']);
        expect(out.stderr).toBe('');
        expect(JSON.parse(out.stdout)).toMatchObject({ total: 1, invalid: 0, dryRun: true });
        for (const [i, [args]] of viaMain.entries()) {
          const files = ofMain[i]!;
          expect(files, args.join(' ')).toContain('main.js');
          expect(files.filter((f) => f.startsWith('fast/')), args.join(' ')).toEqual([]);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('dist/fast/check.js holds exactly these modules: an import added to check\'s path (start-up time) fails here until listed', () => {
      // The modules of check's path in dist/main.js (above), and those they load on demand, which the
      // one-file bundle holds unevaluated until then: colours for a terminal, the sandbox admin
      // transport, the keychain's wrapper. Prompts are in dist/fast/vendor/ (below). Not --sandbox,
      // --jq or a proxy's undici (the launcher runs dist/main.js for those), and never zod, conf or jq.
      expect(sourcesIn([join(ROOT, 'dist', 'fast', 'check.js')])).toEqual(
        [...CHECK_PATH, 'node_modules/chalk', 'src/config/sandbox-default.ts', 'src/output/index.ts', 'src/transport/sandbox-admin.ts'].sort(),
      );
    });

    it('dist/fast/batch.js holds exactly these modules: an import added to batch\'s path (start-up time) fails here until listed', () => {
      // Batch's path and what it loads on demand, held unevaluated until then: zod and the schemas
      // (an entry the quick check cannot vouch for), the CSV reader's wrapper, the progress bar and
      // colours for a terminal, the keychain's wrapper. The CSV parser, tables and prompts are in
      // dist/fast/vendor/ (below). Not --sandbox, --jq or a proxy's undici (the launcher runs
      // dist/main.js for those), and never conf, fastify or jq.
      expect(sourcesIn([join(ROOT, 'dist', 'fast', 'batch.js')])).toEqual([
        'node_modules/chalk',
        'node_modules/commander',
        'node_modules/undici',
        'node_modules/zod',
        'src/api/batch-answer.ts',
        'src/api/call-errors.ts',
        'src/api/paths.ts',
        'src/api/same-email.ts',
        'src/batch/chunks.ts',
        'src/batch/done-set.ts',
        'src/batch/earlier-runs.ts',
        'src/batch/entry-reports.ts',
        'src/batch/fingerprint.ts',
        'src/batch/first-request-claim.ts',
        'src/batch/http.ts',
        'src/batch/journal-read.ts',
        'src/batch/journal.ts',
        'src/batch/journals.ts',
        'src/batch/match.ts',
        'src/batch/memory.ts',
        'src/batch/paths.ts',
        'src/batch/resume-checks.ts',
        'src/batch/run.ts',
        'src/batch/same-entries.ts',
        'src/batch/sender.ts',
        'src/batch/window.ts',
        'src/batch/wording.ts',
        'src/commands/batch.run.ts',
        'src/commands/batch.ts',
        'src/commands/context.ts',
        'src/commands/index.ts',
        'src/commands/journals/index.ts',
        'src/commands/journals/list.run.ts',
        'src/commands/journals/list.ts',
        'src/commands/journals/prune.run.ts',
        'src/commands/journals/prune.ts',
        'src/commands/journals/show.run.ts',
        'src/commands/journals/show.ts',
        'src/commands/shared/batch-summary.ts',
        'src/commands/shared/batch-wording.ts',
        'src/commands/shared/dependent-options.ts',
        'src/commands/shared/json-fields.ts',
        'src/commands/shared/option-parsers.ts',
        'src/commands/shared/repeatable-options.ts',
        'src/commands/shared/transport-hints.ts',
        'src/commands/shared/unreadable-journals.ts',
        'src/commands/verb.ts',
        'src/config/environment.ts',
        'src/config/file.ts',
        'src/config/keychain.ts',
        'src/config/paths.ts',
        'src/config/sandbox-default.ts',
        'src/config/settings.ts',
        'src/config/url.ts',
        'src/context.ts',
        'src/errors.ts',
        'src/exit-codes.ts',
        'src/exit.ts',
        'src/files.ts',
        'src/help-layout.ts',
        'src/help-topics.ts',
        // Whether an input line is already JSON.stringify's text (the running hash takes it as it is).
        'src/input/canonical-json.ts',
        'src/input/choice.ts',
        'src/input/csv.ts',
        'src/input/detect.ts',
        'src/input/entries.ts',
        // The readers' items a piece of input at a time, for the engine.
        'src/input/item-groups.ts',
        'src/input/json-stream.ts',
        'src/input/json-text.ts',
        'src/input/ndjson.ts',
        'src/input/prompter.ts',
        'src/input/secret-file.ts',
        'src/input/sources.ts',
        'src/input/stdin.ts',
        'src/input/text.ts',
        'src/input/time.ts',
        'src/main.ts',
        'src/output/color.ts',
        'src/output/document.ts',
        'src/output/drained.ts',
        'src/output/fields.ts',
        'src/output/files.ts',
        'src/output/lock.ts',
        'src/output/mode.ts',
        'src/output/notice.ts',
        'src/output/one-line.ts',
        'src/output/print.ts',
        'src/output/progress.ts',
        'src/output/relative-time.ts',
        'src/output/targets.ts',
        'src/output/wrap.ts',
        'src/plural.ts',
        'src/program.ts',
        'src/report-error.ts',
        'src/run.ts',
        'src/schema/address.ts',
        'src/schema/common.ts',
        'src/schema/datetime.ts',
        'src/schema/email-quick.ts',
        'src/schema/email.ts',
        'src/schema/ids.ts',
        'src/schema/issues.ts',
        'src/schema/limits.ts',
        'src/schema/own-field.ts',
        'src/schema/text.ts',
        'src/secrets.ts',
        'src/transport/agent.ts',
        'src/transport/attempt.ts',
        'src/transport/create.ts',
        'src/transport/http-errors.ts',
        'src/transport/http.ts',
        'src/transport/pacer.ts',
        'src/transport/rate-headers.ts',
        'src/transport/retry.ts',
        'src/transport/sandbox-admin.ts',
        'src/v8-flags.ts',
        'src/version.ts',
      ]);
    });

    it('dist/fast/vendor/ holds only packages, one file for each the fast bundles import on demand: no module of mailroom\'s (its state is held once)', () => {
      const vendor = join(ROOT, 'dist', 'fast', 'vendor');
      expect(readdirSync(vendor).sort()).toEqual(['cli-table3.js', 'csv-parse.js', 'inquirer-confirm.js', 'inquirer-password.js']);
      for (const file of readdirSync(vendor)) expect(sourcesIn([join(vendor, file)]).filter((m) => !m.startsWith('node_modules/'))).toEqual([]);
      expect(sourcesIn([join(vendor, 'csv-parse.js')])).toEqual(['node_modules/csv-parse']);
      expect(sourcesIn([join(vendor, 'cli-table3.js')])).toContain('node_modules/cli-table3');
      expect(sourcesIn([join(vendor, 'inquirer-confirm.js')])).toContain('node_modules/@inquirer/confirm');
      expect(sourcesIn([join(vendor, 'inquirer-password.js')])).toContain('node_modules/@inquirer/password');
      for (const command of ['batch', 'check']) {
        const imported = [...readFileSync(join(ROOT, 'dist', 'fast', `${command}.js`), 'utf8').matchAll(/import\("\.\/vendor\/([^"]+)"\)/g)].map((m) => m[1]);
        for (const file of imported) expect(readdirSync(vendor)).toContain(file);
      }
    });

    it('a batch whose entries pass the quick check loads no zod, conf or sandbox code (zod loads only to say what is wrong)', () => {
      const dir = mkdtempSync(join(tmpdir(), 'mailroom-modules-batch-'));
      try {
        const input = join(dir, 'in.ndjson');
        const entry = (n: number) => JSON.stringify({ from: 'Ops <ops@example.com>', to: `user${n}@customer.test`, subject: `Order ${n}`, html: `<p>Order <b>${n}</b></p>`, sendAt: '2030-01-01T09:00:00+02:00' });
        writeFileSync(input, `${[1, 2, 3].map(entry).join('\n')}\n`);
        const bad = join(dir, 'bad.ndjson');
        writeFileSync(bad, `${entry(1)}\n{"to":"nobody"}\n`);
        const [valid, invalid] = modulesOfEach([
          ['batch', input, '--dry-run', '--json'],
          ['batch', bad, '--dry-run', '--json'],
        ]);
        expect(heavyIn(valid, /^\/\/ (?:\S*\/)?(node_modules\/(zod|fastify|conf)\/|src\/sandbox\/)/m)).toEqual([]);
        expect(heavyIn(invalid, /^\/\/ (?:\S*\/)?node_modules\/zod\//m).length, '(the check sees a run that does load zod)').toBeGreaterThan(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a batch whose entries pass the quick check runs no zod in dist/fast/batch.js either (the file holds it; only an entry the check cannot vouch for runs it)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mailroom-zod-'));
      try {
        const entry = (n: number) => JSON.stringify({ from: 'Ops <ops@example.com>', to: `user${n}@customer.test`, subject: `Order ${n}`, html: `<p>Order <b>${n}</b></p>` });
        const valid = join(dir, 'in.ndjson');
        writeFileSync(valid, `${[1, 2, 3].map(entry).join('\n')}\n`);
        const bad = join(dir, 'bad.ndjson');
        writeFileSync(bad, `${entry(1)}\n{"to":"nobody"}\n`);
        const ranZod = (input: string) => {
          const file = join(dir, 'zod.txt');
          spawnSync(process.execPath, ['--import', join(ROOT, 'test', 'fixtures', 'record-zod.mjs'), BIN, 'batch', input, '--dry-run', '--json'], {
            env: { ...env, MAILROOM_CONFIG_DIR: dir, MAILROOM_STATE_DIR: join(dir, 'state'), MAILROOM_TEST_ZOD_FILE: file },
            stdio: 'ignore',
          });
          return readFileSync(file, 'utf8');
        };
        expect(await distFilesOf(['batch', valid, '--dry-run', '--json'])).toEqual(['fast/batch.js']);
        expect(ranZod(valid)).toBe('false');
        expect(ranZod(bad), '(the check sees a run that does run zod)').toBe('true');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('jq (jq-wasm, bundled) loads only with --jq; check and help never load it', () => {
      const jq = /^\/\/ (?:\S*\/)?node_modules\/jq-wasm\//m;
      const [json, filtered] = modulesOfEach([['config', 'path', '--json'], ['config', 'path', '--jq', '.path']]);
      expect(heavyIn(json, jq)).toEqual([]);
      expect(heavyIn(filtered, jq).length).toBeGreaterThan(0);
      expect(heavyIn(ofChecks[0], jq)).toEqual([]);
    });

    it('the keychain module (@napi-rs/keyring, native) is loaded by no help screen, nor by `check` with a key in the environment', () => {
      const keyring = (files: string[] | undefined) => (files ?? []).filter((f) => f.includes('@napi-rs'));
      const ofHelpRequired: string[][] = [];
      modulesOfEach(helpRuns.slice(0, 3), {}, ofHelpRequired);
      const ofCheckRequired: string[][] = [];
      // Even with a default profile whose key is in the keychain: the environment's key wins, the keychain is not reached.
      const dir = mkdtempSync(join(tmpdir(), 'mailroom-modules-cfg-'));
      try {
        writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { keychain: { service: 'mailroom-cli', account: 'default:test' } } } }), { mode: 0o600 });
        const inKeychain = { MAILROOM_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/mailroom-test-bus' };
        modulesOfEach([check], { ...checkEnv, ...inKeychain }, ofCheckRequired);
        expect([...ofHelpRequired, ...ofCheckRequired].flatMap(keyring)).toEqual([]);
        // (and one that needs the profile's key does load it)
        const needed: string[][] = [];
        modulesOfEach([['--max-retries', '0', 'check', '-q']], { MAILROOM_BASE_URL: checkEnv.MAILROOM_BASE_URL, ...inKeychain }, needed);
        expect(keyring(needed[0]).length).toBeGreaterThan(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('(the check above sees a command that does load them)', () => {
      expect(heavyIn(ofChecks[0]).length).toBeGreaterThan(0);
    });

    it('(runs sharing a process are told apart: a later run that loads them again is seen, a help run between is not)', () => {
      const [first, help, again] = ofChecks.map((files) => heavyIn(files));
      expect(first?.length).toBeGreaterThan(0);
      expect(help).toEqual([]);
      expect(again).toEqual(first);
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

    it('requires only node:fs and node:path (node:tty only on a terminal, through the stream) and reads only dist/help.json: a new require on the --help path fails here', () => {
      const list = join(dir, 'loaded.txt');
      for (const args of [['--help'], ['send', '--help'], ['--version'], ['help', 'environment']]) {
        rmSync(list, { force: true });
        const r = spawnSync(process.execPath, ['--import', join(ROOT, 'test', 'fixtures', 'record-requires.mjs'), bin, ...args], {
          env: { ...env, MAILROOM_TEST_MODULES_FILE: list },
          encoding: 'utf8',
        });
        expect(r.status, args.join(' ')).toBe(0);
        const loaded = readFileSync(list, 'utf8').trim().split('\n');
        expect(loaded.filter((l) => l.startsWith('require ')).sort(), args.join(' ')).toEqual(['require node:fs', 'require node:path']);
        // Besides the launcher itself (which Node's loader may read so), only the catalog.
        expect(loaded.filter((l) => l.startsWith('read ') && l !== `read ${bin}`), args.join(' ')).toEqual([`read ${join(dir, 'bin', '..', 'dist', 'help.json')}`]);
      }
    });

    it("writes to a pipe or /dev/null without making process.stdout: Node's stream modules load no more than for `node -e 0`", () => {
      // Node's own modules, listed at exit (writing with fs, which makes no stream).
      const probe = join(dir, 'stream-modules.cjs');
      writeFileSync(probe, "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify(process.moduleLoadList.filter((m) => /^NativeModule (net|tty|stream|internal\\/streams\\/|internal\\/fs\\/sync_write_stream)/.test(m)))));\n");
      const loadedBy = (args: string[], stdout: 'pipe' | 'ignore') => {
        const r = spawnSync(process.execPath, ['-r', probe, ...args], { env, stdio: ['ignore', stdout, 'pipe'], encoding: 'utf8' });
        expect(r.status, args.join(' ')).toBe(0);
        return { modules: JSON.parse(r.stderr) as string[], stdout: r.stdout };
      };
      const bare = loadedBy(['-e', '0'], 'ignore').modules;
      for (const stdout of ['pipe', 'ignore'] as const) {
        for (const args of [['--help'], ['--version'], ['help', 'environment']]) {
          const run = loadedBy([bin, ...args], stdout);
          expect(run.modules, `${args.join(' ')} (stdout ${stdout})`).toEqual(bare);
          if (stdout === 'pipe') expect(run.stdout).toBe(node(MAIN, args).stdout);
        }
      }
    });

    it('a pipe left non-blocking by the process before and full: the rest of the screen waits for the reader, none of it lost', () => {
      // Perl (Essential in Debian) sets O_NONBLOCK on the pipe, fills it (64 KiB), then becomes the
      // launcher; the reader starts late. Node's own spawn would hand the child a blocking pipe.
      const fill = 'use Fcntl; fcntl(STDOUT, F_SETFL, fcntl(STDOUT, F_GETFL, 0) | O_NONBLOCK) or die; syswrite(STDOUT, "x" x 65536) == 65536 or die "short"; exec @ARGV';
      const r = spawnSync('bash', ['-c', `perl -e "$FILL" '${process.execPath}' '${bin}' --help | (sleep 0.5; cat); exit "\${PIPESTATUS[0]}"`], { env: { ...env, FILL: fill }, encoding: 'utf8', maxBuffer: 1 << 20 });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('x'.repeat(65536) + catalog.screens['--help']!.out);
    });

    it('hands anything else to dist/main.js (a plain check to dist/fast/check.js): options before --help, unknown commands, a bare group', async () => {
      const cases = [['--json', '--help'], ['chek', '--help'], ['help', 'chek'], ['keys', 'nosuch'], ['check'], ['send', '--to', 'a@example.com', '--help'], ['--version', '--help']];
      const runs = await Promise.all(cases.map((args) => nodeAsync(bin, args)));
      for (const [i, args] of cases.entries()) {
        const r = runs[i] as Awaited<ReturnType<typeof nodeAsync>>;
        expect(r.code, args.join(' ')).not.toBe(0);
        expect(r.stderr, args.join(' ')).toMatch(args[0] === 'check' ? /dist[\\/]fast[\\/]check\.js/ : /dist[\\/]main\.js/);
      }
    });
  });

  // Each case waits on its own terminal: they run side by side.
  describe.concurrent.each([50, 80, 200])('on a terminal of %i columns', (columns) => {
    it.each([['--help'], ['send', '--help'], ['webhooks', '--help'], ['webhooks', 'listen', '--help'], ['keys', 'rotate', '--help'], ['help', 'environment']])(
      '%s %s: no line wider than the terminal (80 at most)',
      async (...args) => {
        const shown = await onTerminal(columns, args);
        expect(shown).toMatch(/^(Usage: mailroom|Environment variables)/);
        const wide = shown.split('\n').filter((l) => l.length > Math.min(columns, 80));
        expect(wide).toEqual([]);
      },
    );
  });

  describe('on a terminal', () => {
    it('a wide terminal gets the 80-column help the catalog holds', async () => {
      expect(await onTerminal(200, ['keys', '--help'])).toBe(catalog.screens['keys --help']?.out);
    });

    it('a narrow terminal gets help wrapped to its width by the full program', async () => {
      const shown = await onTerminal(50, ['keys', '--help']);
      expect(shown).toBe(await onTerminal(50, ['keys', '--help'], MAIN));
      expect(shown).toContain('Usage: mailroom keys [options] [command]');
      expect(shown).not.toBe(catalog.screens['keys --help']?.out);
      expect(shown).toContain('\nlist, create, update, delete and rotate workspace\nAPI keys\n');
    });
  });
});

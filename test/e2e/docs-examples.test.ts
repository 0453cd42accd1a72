import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { transform } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, BIN } from '../helpers/cli.js';
import { runInProcess } from '../helpers/context.js';
import { codeBlocks, SCRIPT, SHELL, shellCommands, type Block } from '../helpers/doc-examples.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { shellWords } from '../helpers/shell-words.js';

/**
 * Every example in the README and docs/ runs, in page order, against a sandbox started for the
 * page, in a temp directory (docs/development.md, "Examples"). Each plain `mailroom ...` line runs
 * in-process; a line needing a shell (pipes, redirections) runs in bash with `mailroom` on PATH (the
 * built bin/mailroom.js), and a block whose lines share state (variables, a trap) runs as one bash
 * script. Each command must exit 0 unless marked. Pages run concurrently, each in its own world;
 * the in-process lines of all pages take turns (they share the secret guard's state, src/secrets.ts).
 */
const markdownFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
const PAGES = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))].map((p) => relative(ROOT, p)).sort();

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnCollect(command: string, args: string[], opts: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A page's world: its own sandbox, temp directory, config and state directories, and `mailroom` on PATH. */
async function pageWorld(): Promise<{ sandbox: TestSandbox; dir: string; env: Record<string, string> }> {
  const sandbox = await withSandbox();
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-docs-'));
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'mailroom'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'mailroom'), 0o755);
  // `import ... from 'mailroom-cli'` in a JS example resolves to this checkout.
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'mailroom-cli'));
  mkdirSync(join(dir, '.home'));
  const env = {
    PATH: `${bin}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: join(dir, '.home'),
    MAILROOM_CONFIG_DIR: join(dir, '.config'),
    MAILROOM_STATE_DIR: join(dir, '.state'),
    MAILROOM_BASE_URL: sandbox.baseUrl,
    MAILROOM_API_KEY: sandbox.apiKey,
    // What a CI job's secret store would provide, as the official SDK names it.
    SMASHSEND_API_KEY: sandbox.apiKey,
    MAILROOM_WORKSPACE: sandbox.workspaceId,
    NO_COLOR: '1',
  };
  return { sandbox, dir, env };
}

const where = (page: string, block: Block) => `${page}:${block.line}`;
const report = (what: string, o: Outcome) => `${what}\n--- exit ${o.code}\n--- stdout\n${o.stdout}\n--- stderr\n${o.stderr}`;

let inProcessTurn: Promise<unknown> = Promise.resolve();

/** runInProcess, once the in-process run of any other page has ended. */
function runInProcessInTurn(...args: Parameters<typeof runInProcess>): ReturnType<typeof runInProcess> {
  const run = inProcessTurn.then(() => runInProcess(...args));
  inProcessTurn = run.catch(() => undefined);
  return run;
}

/** A line that leaves state for the next ones (a variable, a directory, a trap, a background job): the block is one script. */
const STATEFUL = /^(\w+=|export |cd |trap |coproc |read |source |\. |\w+\s*\(\)|for |while |if |case )|[^&]&(\s|$)/;

async function runShellBlock(page: string, block: Block, dir: string, env: Record<string, string>, expected: number): Promise<void> {
  const commands = shellCommands(block.body);
  if (commands.some((c) => STATEFUL.test(c))) {
    const o = await spawnCollect('bash', ['-e', '-o', 'pipefail', '-c', block.body], { cwd: dir, env });
    expect(o.code, report(`${where(page, block)}: the block, in bash\n${block.body}`, o)).toBe(expected);
    return;
  }
  // Independent lines: a plain `mailroom ...` runs in-process (fast), anything else in bash.
  for (const [i, command] of commands.entries()) {
    const words = shellWords(command);
    const o =
      words !== undefined && words[0] === 'mailroom'
        ? await runInProcessInTurn(words.slice(1), { env, cwd: dir })
        : await spawnCollect('bash', ['-e', '-o', 'pipefail', '-c', command], { cwd: dir, env });
    expect(o.code, report(`${where(page, block)}: $ ${command}`, o)).toBe(i === commands.length - 1 ? expected : 0);
  }
}

async function runScriptBlock(page: string, block: Block, dir: string, env: Record<string, string>, expected: number): Promise<void> {
  const code = block.lang.startsWith('ts') || block.lang === 'mts' ? (await transform(block.body, { loader: 'ts', format: 'esm' })).code : block.body;
  const file = join(dir, `example-${block.line}.mjs`);
  writeFileSync(file, code);
  const o = await spawnCollect(process.execPath, [file], { cwd: dir, env, timeoutMs: 30_000 });
  expect(o.code, report(`${where(page, block)}: the ${block.lang} block, run with node`, o)).toBe(expected);
}

/** Starts a long-running example and resolves once it printed `ready` (or anything, when not given). */
function startBackground(page: string, block: Block, dir: string, env: Record<string, string>, ready: string | undefined): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn('bash', ['-c', `exec ${shellCommands(block.body).join(' ')}`], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${where(page, block)}: no "${ready ?? 'output'}" within 20 s:\n${output}`)), 20_000);
    const seen = (d: Buffer) => {
      output += d.toString();
      if (ready === undefined || output.includes(ready)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', (code) => reject(new Error(`${where(page, block)}: exited ${code} before it was ready:\n${output}`)));
  });
}

describe('every example in the README and docs/ runs against the sandbox', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('found the pages, and every block has a language (text for output, a data format for data)', () => {
    expect(PAGES).toContain('README.md');
    expect(PAGES).toContain('docs/batch.md');
    const bare = PAGES.flatMap((page) => codeBlocks(readFileSync(join(ROOT, page), 'utf8')).filter((b) => b.lang === '').map((b) => where(page, b)));
    expect(bare, 'a fence without a language: sh/js/ts run; text, json, csv, ... are shown (mark input files with <!-- example: file NAME -->)').toEqual([]);
    // A server started on its default port collides with any other on the machine (another test, the reader's own).
    const fixedPort = PAGES.flatMap((page) =>
      codeBlocks(readFileSync(join(ROOT, page), 'utf8'))
        .filter((b) => SHELL.has(b.lang) && b.marker.kind === 'background' && !/--port 0\b/.test(b.body))
        .map((b) => where(page, b)),
    );
    expect(fixedPort, 'a background example listens on a fixed port: give it --port 0').toEqual([]);
  });

  for (const page of PAGES) {
    const blocks = codeBlocks(readFileSync(join(ROOT, page), 'utf8'));
    const runnable = blocks.filter((b) => (SHELL.has(b.lang) || SCRIPT.has(b.lang)) && ['run', 'exit', 'background'].includes(b.marker.kind));
    const files = blocks.filter((b) => b.marker.kind === 'file');
    if (runnable.length === 0 && files.length === 0) continue;

    it.concurrent(`${page}: ${runnable.length} example(s)`, async () => {
      const { sandbox, dir, env } = await pageWorld();
      const background: { block: Block; child: ChildProcess; output: () => string }[] = [];
      try {
        // The page's input files exist, exactly as shown (no final newline added), before its first example runs.
        for (const { marker: m, body } of files) {
          if (m.kind !== 'file') continue;
          mkdirSync(dirname(join(dir, m.name)), { recursive: true });
          writeFileSync(join(dir, m.name), body);
        }
        for (const block of blocks) {
          const m = block.marker;
          if (m.kind === 'tested-by') expect(existsSync(join(ROOT, m.path)), `${where(page, block)}: tested-by ${m.path} does not exist`).toBe(true);
          if (!runnable.includes(block)) continue;
          if (m.kind === 'background') {
            background.push({ block, ...(await startBackground(page, block, dir, env, m.ready)) });
            continue;
          }
          const expected = m.kind === 'exit' ? m.code : 0;
          if (SHELL.has(block.lang)) await runShellBlock(page, block, dir, env, expected);
          else await runScriptBlock(page, block, dir, env, expected);
        }
        for (const { block, child, output } of background) {
          const exited = child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
          child.kill('SIGTERM');
          expect(await exited, `${where(page, block)}: stopped with SIGTERM\n${output()}`).toBe(0);
        }
      } finally {
        for (const { child } of background) if (child.exitCode === null) child.kill('SIGKILL');
        await sandbox.close();
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      }
    });
  }
});

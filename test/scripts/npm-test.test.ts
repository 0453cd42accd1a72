import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * scripts/test.mjs (`npm test`) with a stand-in `npm` on PATH: each step prints its name and the
 * niceness it runs at, and exits with the code FAIL_<step> gives it (0 unless set).
 */
const dir = mkdtempSync(join(tmpdir(), 'mailroom-npm-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const npm = join(dir, 'npm');
/** The system's temporary directory as the run sees it. */
const systemTemp = join(dir, 'tmp');
mkdirSync(systemTemp);
writeFileSync(
  npm,
  `#!/bin/sh
# npm run --silent <step>; npm takes a moment to start its step, as this does
sleep 0.1
step="$3"
var="FAIL_$(echo "$step" | tr ':' '_')"
echo "ran $step at niceness $(nice), extra CA certs \${NODE_EXTRA_CA_CERTS:-unset}"
# what a test leaves behind in the temporary directory
echo "step $step temp $(mktemp -d)"
code=$(printenv "$var")
exit "\${code:-0}"
`,
);
chmodSync(npm, 0o755);

function npmTest(fail: Record<string, number> = {}): Promise<{ code: number | null; stdout: string }> {
  // As on the CI machines: set, for every process (an empty bundle here).
  const env: Record<string, string> = { PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}`, NODE_EXTRA_CA_CERTS: '/dev/null', TMPDIR: systemTemp };
  for (const [step, code] of Object.entries(fail)) env[`FAIL_${step.replace(':', '_')}`] = String(code);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'test.mjs')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

const ran = (stdout: string) => [...stdout.matchAll(/^ran (\S+)/gm)].map((m) => m[1]).sort();
const ALL = ['build', 'deps', 'lint', 'test:browser', 'test:e2e', 'test:unit', 'typecheck'];

describe('npm test (scripts/test.mjs)', () => {
  it('runs every step and exits 0 when all pass; the static checks run niced, the rest at our priority; no step loads extra CA certificates', async () => {
    const r = await npmTest();
    expect(r.code).toBe(0);
    expect(ran(r.stdout)).toEqual(ALL);
    expect(r.stdout).toMatch(/npm test: all steps passed/);
    const own = getPriority();
    const niceness = (step: string) => Number(new RegExp(`^ran ${step} at niceness (-?\\d+)`, 'm').exec(r.stdout)?.[1]);
    for (const step of ['typecheck', 'lint', 'deps']) expect(niceness(step)).toBe(Math.max(10, own));
    for (const step of ['build', 'test:unit', 'test:e2e', 'test:browser']) expect(niceness(step)).toBe(own);
    expect(r.stdout.match(/extra CA certs unset$/gm)).toHaveLength(ALL.length);
  });

  it('every step shares one temporary directory of the run, and the run leaves nothing in the system one', async () => {
    const r = await npmTest({ 'test:e2e': 1 });
    const temps = [...r.stdout.matchAll(/^step \S+ temp (\S+)$/gm)].map((m) => m[1] as string);
    expect(temps).toHaveLength(ALL.length);
    const roots = new Set(temps.map((t) => t.slice(0, t.lastIndexOf('/'))));
    expect(roots.size).toBe(1);
    expect([...roots][0]).toMatch(new RegExp(`^${systemTemp}/mailroom-test-`));
    for (const t of temps) expect(existsSync(t)).toBe(false);
    expect(readdirSync(systemTemp)).toEqual([]);
  });

  it('a failed static check fails the run with its exit code, and the tests still run', async () => {
    const r = await npmTest({ lint: 3 });
    expect(r.code).toBe(3);
    expect(ran(r.stdout)).toEqual(ALL);
    expect(r.stdout).toMatch(/── lint: failed \(exit 3\)/);
    expect(r.stdout).toMatch(/npm test: lint failed, /);
  });

  it('a failed build: nothing that needs dist/ runs, and the run exits with the build’s code', async () => {
    const r = await npmTest({ build: 2 });
    expect(r.code).toBe(2);
    expect(ran(r.stdout)).toEqual(['build', 'deps', 'lint', 'typecheck']);
    expect(r.stdout).toMatch(/npm test: build failed; not run: test:unit, test:e2e, test:browser/);
  });

  it('failed unit tests: the e2e and browser projects do not run; with two failures, the first in order gives the code', async () => {
    const r = await npmTest({ 'test:unit': 1, typecheck: 2 });
    expect(r.code).toBe(2);
    expect(ran(r.stdout)).toEqual(['build', 'deps', 'lint', 'test:unit', 'typecheck']);
    expect(r.stdout).toMatch(/npm test: typecheck, test:unit failed; not run: test:e2e, test:browser/);
  });
});

// `npm test`: every step of the suite, each started as soon as what it needs has ended, so that the
// two cores stay busy. The build first, with the static checks beside it at a lower CPU priority
// (nothing waits for them: they fill the time the test projects leave idle); the unit projects once
// dist/ is built (a few of their files read it); then the end-to-end and browser projects together
// (the browser project mostly waits on Chromium, one core). Each step's output is printed whole
// under its name when it ends. A step whose prerequisite failed does not run. Exits with the code of
// the first step, in the order below, that failed.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';

/** Each step, the steps it waits for, and whether it runs niced (a background filler). */
const STEPS = [
  { name: 'build', after: [] },
  { name: 'typecheck', after: [], filler: true },
  { name: 'lint', after: [], filler: true },
  { name: 'deps', after: [], filler: true },
  { name: 'test:unit', after: ['build'] },
  { name: 'test:e2e', after: ['build', 'test:unit'] },
  { name: 'test:browser', after: ['build', 'test:unit'] },
];

// One temporary directory for the whole run (TMPDIR for every step and what it starts: the CLI,
// sandboxes, shells, Chromium), removed at the end, so that a run leaves nothing in the system's
// temporary directory whatever a test forgets. Open to all, as /tmp is: some tests run the CLI as
// another user.
const scratch = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
chmodSync(scratch, 0o1777);
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const children = new Set();
const startedAt = performance.now();
const clock = () => `${((performance.now() - startedAt) / 1000).toFixed(1)} s`;

function runScript(name, filler) {
  const started = performance.now();
  process.stdout.write(`── ${name}: started at ${clock()}\n`);
  // Colour as on a terminal when ours is one, though the step writes to a pipe.
  // The CLI's code cache (bin/mailroom.js) goes there too, shared by the run's commands, not ~/.cache.
  const env = { ...process.env, TMPDIR: scratch, MAILROOM_CACHE_DIR: join(scratch, 'code-cache'), ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}) };
  // Node reads and parses this certificate bundle as every process starts (about 80 ms of CPU on
  // the CI machines, which set it), and the suite starts hundreds of Node processes; it only adds
  // trusted authorities for TLS, and the tests talk to nothing but loopback HTTP.
  delete env.NODE_EXTRA_CA_CERTS;
  const child = spawn(npm, ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'], env });
  children.add(child);
  // Set before npm starts the step's own process, which inherits it. Where the OS refuses, it runs
  // at normal priority: only slower.
  if (filler && child.pid !== undefined) {
    try {
      setPriority(child.pid, 10);
    } catch {
      // runs at normal priority
    }
  }
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('error', (err) => output.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => {
      children.delete(child);
      const status = code ?? (signal ? 128 : 1);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n── ${name}: ${status === 0 ? 'ok' : `failed (exit ${code ?? signal})`}, ${seconds} s\n`);
      if (output.length) process.stdout.write(Buffer.concat(output));
      resolve(status);
    });
  });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
    process.exitCode = signal === 'SIGINT' ? 130 : 143;
  });
}

/** name → promise of its exit status (undefined: not run, a prerequisite failed). */
const outcomes = new Map();
for (const step of STEPS) {
  outcomes.set(
    step.name,
    Promise.all(step.after.map((name) => outcomes.get(name))).then((statuses) =>
      statuses.every((status) => status === 0) && !process.exitCode ? runScript(step.name, step.filler) : undefined,
    ),
  );
}
const statuses = await Promise.all(outcomes.values());
if (process.exitCode) process.exit();
const failed = STEPS.filter((_, i) => statuses[i] !== 0 && statuses[i] !== undefined).map((s) => s.name);
const skipped = STEPS.filter((_, i) => statuses[i] === undefined).map((s) => s.name);
process.stdout.write(`\nnpm test: ${failed.length ? `${failed.join(', ')} failed` : 'all steps passed'}${skipped.length ? `; not run: ${skipped.join(', ')}` : ''}, ${clock()}\n`);
if (failed.length) process.exit(statuses[STEPS.findIndex((s) => s.name === failed[0])]);

// `npm test`: the static checks and the build run at once (they read the sources and write only
// dist/, so on two cores they take about half their summed time), each one's output printed whole
// under its name when it ends; then the test projects, which need dist/, one after the other.
// Exits with the code of the first step, in this order, that failed.
import { spawn } from 'node:child_process';

const CONCURRENT = ['typecheck', 'lint', 'deps', 'build'];
const IN_TURN = ['test:unit', 'test:e2e', 'test:browser'];

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const children = new Set();

function runScript(name, { buffered }) {
  const started = performance.now();
  // Colour as on a terminal when ours is one, though the step writes to a pipe.
  const env = buffered && process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env;
  const child = spawn(npm, ['run', '--silent', name], { stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit', env });
  children.add(child);
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  child.stderr?.on('data', (chunk) => output.push(chunk));
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

const codes = await Promise.all(CONCURRENT.map((name) => runScript(name, { buffered: true })));
if (process.exitCode) process.exit();
const failed = codes.findIndex((code) => code !== 0);
if (failed !== -1) {
  process.stdout.write(`\nnpm test: ${CONCURRENT.filter((_, i) => codes[i] !== 0).join(', ')} failed; tests not run\n`);
  process.exit(codes[failed]);
}
for (const name of IN_TURN) {
  process.stdout.write(`\n── ${name}\n`);
  const code = await runScript(name, { buffered: false });
  if (process.exitCode) process.exit();
  if (code !== 0) process.exit(code);
}

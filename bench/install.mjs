// Installs mailroom as a user would and prints the figures the README and docs/install.md state: `npm pack`, then
// `npm install -g --prefix P --cache <empty> ./mailroom-cli-x.tgz` (registry reachable), package
// count, installed MB, seconds and npm warnings; then runs the installed command from outside the
// checkout: the man page linked, --version, send --sandbox, sandbox (start, check against it, stop), the keychain
// module loading (doctor), batch --sandbox, and
// send --react (refused with the install command, then that command run, then rendered).
// Targets (issue 13): at most 15 packages and 15 MB without the React stack, no npm warnings.
// `node bench/install.mjs [--keep]`; exits 1 when a target or a step fails.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGETS = { packages: 15, mb: 15, warnings: 0 };
const work = mkdtempSync(join(tmpdir(), 'mailroom-install-bench-'));
const prefix = join(work, 'prefix');
const cache = join(work, 'npm-cache');
const home = join(work, 'home');
const elsewhere = join(work, 'elsewhere');
for (const dir of [cache, home, elsewhere]) mkdirSync(dir, { recursive: true });
// The user's npm, not this machine's: no ~/.npmrc settings, an empty cache.
const userconfig = join(work, 'npmrc');
writeFileSync(userconfig, '');
const npmEnv = { ...process.env, npm_config_userconfig: userconfig, npm_config_update_notifier: 'false' };
for (const key of Object.keys(npmEnv)) if (/^npm_(lifecycle|package|config_(?!userconfig|update_notifier))/i.test(key)) delete npmEnv[key];

const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

function npm(args, cwd = work) {
  const started = process.hrtime.bigint();
  const r = spawnSync('npm', args, { cwd, env: npmEnv, encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const warnings = `${r.stdout}\n${r.stderr}`.split('\n').filter((line) => /^npm warn/i.test(line));
  return { ...r, seconds, warnings };
}

function installedFigures() {
  const lib = join(prefix, 'lib', 'node_modules');
  let packages = 0;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.')) continue;
      const path = join(dir, name);
      if (name.startsWith('@')) {
        walk(path);
        continue;
      }
      packages += 1;
      const nested = join(path, 'node_modules');
      if (statSync(nested, { throwIfNoEntry: false })?.isDirectory()) walk(nested);
    }
  };
  walk(lib);
  const du = spawnSync('du', ['-sk', prefix], { encoding: 'utf8' });
  return { packages, mb: Number(du.stdout.split('\t')[0]) / 1024 };
}

const cliEnv = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOME: home, MAILROOM_CONFIG_DIR: join(home, 'config'), XDG_STATE_HOME: join(home, 'state') };
for (const key of Object.keys(cliEnv)) if (/^(MAILROOM_(?!CONFIG_DIR)|SMASHSEND_|npm_)/.test(key)) delete cliEnv[key];

function mailroom(args, input) {
  return spawnSync(join(prefix, 'bin', 'mailroom'), args, { cwd: elsewhere, env: cliEnv, encoding: 'utf8', input, timeout: 120_000 });
}

async function sandboxStartStop() {
  const child = spawn(join(prefix, 'bin', 'mailroom'), ['sandbox', '--port', '0', '--json'], { cwd: elsewhere, env: cliEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const ready = await new Promise((resolve) => {
    let buf = '';
    const timer = setTimeout(() => resolve(undefined), 30_000);
    child.stdout.on('data', (d) => {
      buf += d;
      if (!buf.includes('\n')) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))));
      } catch {
        resolve(undefined);
      }
    });
  });
  check(Boolean(ready?.baseUrl), `mailroom sandbox starts (${ready?.baseUrl ?? 'no ready line'})`);
  if (ready) {
    const r = mailroom(['check', '-q', '--base-url', ready.baseUrl, '--api-key', ready.apiKey]);
    check(r.status === 0, `mailroom check against it: exit ${r.status}`);
  }
  child.kill('SIGINT');
  const code = await exited;
  // 130, as for any command a person stops with Ctrl-C (help exit-codes); SIGTERM is the clean 0.
  check(code === 130, `mailroom sandbox stops on Ctrl-C: exit ${code}`);
}

try {
  console.log(`node ${process.version}, npm ${spawnSync('npm', ['--version'], { env: npmEnv, encoding: 'utf8' }).stdout.trim()}`);
  const packed = npm(['pack', '--json', '--pack-destination', work], ROOT);
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
  console.log(`packed ${filename}: ${(size / 1024 / 1024).toFixed(2)} MB, ${(unpackedSize / 1024 / 1024).toFixed(2)} MB unpacked, ${entryCount} files`);

  const install = npm(['install', '-g', '--prefix', prefix, '--cache', cache, join(work, filename)]);
  if (install.status !== 0) throw new Error(`npm install failed:\n${install.stderr}`);
  const base = installedFigures();
  console.log(`\ninstall without the React stack: ${base.packages} packages, ${base.mb.toFixed(1)} MB, ${install.seconds.toFixed(1)} s, ${install.warnings.length} npm warnings`);
  for (const line of install.warnings) console.log(`  ${line}`);
  check(base.packages <= TARGETS.packages, `packages ${base.packages} <= ${TARGETS.packages}`);
  check(base.mb <= TARGETS.mb, `installed ${base.mb.toFixed(1)} MB <= ${TARGETS.mb} MB`);
  check(install.warnings.length <= TARGETS.warnings, `npm warnings ${install.warnings.length} <= ${TARGETS.warnings}`);
  const ls = npm(['ls', '-g', '--prefix', prefix, '--all']);
  check(ls.status === 0 && ls.warnings.length === 0, `npm ls clean (exit ${ls.status})`);

  // npm links the package's `man` field into the prefix's man directory on a global install.
  const man = join(prefix, 'share', 'man', 'man1', 'mailroom.1');
  check(existsSync(man) && readFileSync(man, 'utf8').startsWith('.TH MAILROOM 1'), `man page installed (${man.slice(prefix.length + 1)})`);

  console.log('\nfrom outside the checkout:');
  const version = mailroom(['--version']);
  check(version.status === 0 && /^\d+\.\d+\.\d+/.test(version.stdout), `mailroom --version: ${version.stdout.trim()}`);
  const send = mailroom(['send', '--sandbox', '--json', '--from', 'you@example.com', '--to', 'friend@example.com', '--subject', 'Hello', '--html', '<p>Hi!</p>']);
  check(send.status === 0, `mailroom send --sandbox: exit ${send.status}${send.status ? `: ${send.stderr.trim()}` : ''}`);
  await sandboxStartStop();
  // The keychain module (native, installed beside dist/) loads from the install: doctor reaches the
  // store, or says why it cannot (no D-Bus here), never that the module is missing.
  const doctor = mailroom(['doctor', '--json', '--base-url', 'http://127.0.0.1:9']);
  const storage = (() => {
    try {
      return JSON.parse(doctor.stdout).checks.find((c) => c.name === 'key storage')?.detail ?? '';
    } catch {
      return '';
    }
  })();
  check(storage !== '' && !storage.includes('could not be loaded'), `keychain module loads: ${storage.split(';')[0]}`);
  writeFileSync(join(elsewhere, 'emails.ndjson'), Array.from({ length: 120 }, (_, i) => JSON.stringify({ to: `user${i}@example.com` })).join('\n'));
  writeFileSync(join(elsewhere, 'body.html'), '<p>Hi!</p>');
  const batch = mailroom(['batch', '--sandbox', '-q', 'emails.ndjson', '--from', 'you@example.com', '--subject', 'Hello', '--html-file', 'body.html', '--report', 'report.ndjson']);
  check(batch.status === 0, `mailroom batch --sandbox (120 emails): exit ${batch.status}${batch.status ? `: ${batch.stderr.trim()}` : ''}`);

  cpSync(join(ROOT, 'test', 'fixtures', 'react', 'Welcome.tsx'), join(elsewhere, 'Welcome.tsx'));
  const react = ['send', '--sandbox', '--json', '--react', 'Welcome.tsx', '--props', '{"name":"Ada"}', '--from', 'you@example.com', '--to', 'ada@example.com', '--subject', 'Welcome'];
  const refused = mailroom(react);
  const hint = /or next to mailroom: (npm install -g --prefix \S+ --ignore-scripts (.+))$/m.exec(refused.stderr);
  check(refused.status === 2 && hint !== null, `send --react without the React stack: exit ${refused.status}, ${refused.stderr.split('\n')[0]}`);
  if (hint) {
    console.log(`  running the command it printed: ${hint[1]}`);
    const peers = npm(['install', '-g', '--prefix', prefix, '--ignore-scripts', '--cache', cache, ...hint[2].split(' ')]);
    const withReact = installedFigures();
    console.log(`  with the React stack: ${withReact.packages} packages, ${withReact.mb.toFixed(1)} MB (+${peers.seconds.toFixed(1)} s, ${peers.warnings.length} npm warnings)`);
    for (const line of peers.warnings) console.log(`    ${line}`);
    check(peers.status === 0 && peers.warnings.length === 0, `peers installed without warnings (exit ${peers.status})`);
    const rendered = mailroom(react);
    check(rendered.status === 0, `send --react with the peers installed: exit ${rendered.status}${rendered.status ? `: ${rendered.stderr.trim()}` : ''}`);
  }
} catch (err) {
  failures.push(String(err));
  console.error(String(err));
} finally {
  if (process.argv.includes('--keep')) console.log(`\nkept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
console.log(failures.length ? `\n${failures.length} failed` : '\nall targets met');
process.exitCode = failures.length ? 1 : 0;

#!/usr/bin/env node
'use strict';
// CommonJS on purpose (bin/package.json): `mailroom --help`, `mailroom help <command...>`, a bare
// command group and `--version` are answered from dist/help.json, rendered from the real program at
// build time, before any ES module, Commander or the rest of the CLI loads; everything else runs
// dist/main.js.
const { fstatSync, readFileSync, statSync, writeSync } = require('node:fs');
const { join } = require('node:path');

/** Columns of help text; src/program.ts caps Commander's help at the same width. */
const HELP_WIDTH = 80;

/** This process's streams, terminal and catalog file; a test passes its own (test/cli/help.test.ts). */
const processIO = {
  readCatalog: () => readFileSync(join(__dirname, '..', 'dist', 'help.json'), 'utf8'),
  out: (text) => write(1, text),
  err: (text) => write(2, text),
  /** The width of the terminal on fd 1 or 2; undefined when that fd is not a terminal. */
  columns: (fd) => {
    if (notTerminal(fd)) return undefined;
    const stream = fd === 1 ? process.stdout : process.stderr;
    return stream.isTTY ? stream.columns : undefined;
  },
};

/** notTerminal's answers by fd: a screen asks for its width, then writes. */
const plainFds = {};

/**
 * Whether fd is plainly no terminal: a pipe, a file, a socket or /dev/null (`mailroom --version >
 * /dev/null` in a script). Such a fd is written directly: making process.stdout for it loads Node's
 * streams (and node:net for a pipe), 1.5 to 2.5 ms of a 20 ms start. Anything else (a terminal,
 * another device, a fd that cannot be examined) goes through the stream.
 */
function notTerminal(fd) {
  plainFds[fd] ??= (() => {
    try {
      const st = fstatSync(fd);
      return !st.isCharacterDevice() || st.rdev === statSync('/dev/null').rdev;
    } catch {
      return false;
    }
  })();
  return plainFds[fd];
}

/**
 * Writes text to fd 1 or 2 whole: directly when notTerminal, else through its stream. A pipe that
 * cannot take more now (EAGAIN: its reader is slow and it was made non-blocking) gets the rest
 * through the stream, which waits for the reader.
 */
function write(fd, text) {
  const stream = () => watchOutput(fd === 1 ? process.stdout : process.stderr);
  if (!notTerminal(fd)) return void stream().write(text);
  let bytes = Buffer.from(text);
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (err) {
      if (err.code === 'EAGAIN') return void stream().write(bytes);
      return void writeFailed(fd, err);
    }
  }
}

/** Prints the help or version these arguments ask for and returns true; false when the CLI must answer. */
function answerFromCatalog(args, io = processIO) {
  const last = args[args.length - 1];
  const isVersion = args.length === 1 && (last === '-V' || last === '--version');
  // Only bare words (and a final --help) can be a help request; anything else goes to the CLI unread.
  const words = last === '--help' || last === '-h' ? args.slice(0, -1) : args;
  const mayBeHelp = words.length < args.length || words.length <= 1 || words.includes('help');
  if (!isVersion && (!mayBeHelp || words.some((w) => w.startsWith('-')))) return false;
  let catalog;
  try {
    catalog = JSON.parse(io.readCatalog());
  } catch {
    return false;
  }
  if (isVersion) {
    io.out(`${catalog.version}\n`);
    return true;
  }
  const key = screenKey(args, words, catalog);
  const screen = Object.hasOwn(catalog.screens, key) ? catalog.screens[key] : undefined;
  if (!screen || narrowTerminal(io.columns(screen.out ? 1 : 2))) return false;
  if (screen.out) io.out(screen.out);
  if (screen.err) io.err(screen.err);
  return true;
}

/**
 * The catalog key of the screen these arguments ask for, as src/program.ts's helpRequest reads them:
 * `help` after a command group asks for the help of the words after it (or a topic, at the root).
 */
function screenKey(args, words, catalog) {
  const at = words.indexOf('help');
  if (at >= 0 && catalog.groups.includes(words.slice(0, at).join(' '))) {
    const rest = words.slice(at + 1);
    if (at === 0 && rest.length === 1 && Object.hasOwn(catalog.screens, `help ${rest[0]}`)) return `help ${rest[0]}`;
    return [...words.slice(0, at), ...rest, '--help'].join(' ');
  }
  return words.length === args.length ? words.join(' ') : [...words, '--help'].join(' ');
}

/**
 * As src/context.ts and src/exit.ts do for the CLI: `mailroom --help | head -1` (the reader left) is
 * nothing more to say; a stdout that cannot be written (`> /dev/full`) is one line and exit 9. This
 * process never calls process.exit: Node ends it once its writes have reached a slow reader.
 */
function watchOutput(stream) {
  if (stream.listenerCount('error') === 0) stream.on('error', (err) => writeFailed(stream === process.stdout ? 1 : 2, err));
  return stream;
}

/** A write to fd 1 or 2 that failed: the reader left (EPIPE) is nothing; stdout otherwise is exit 9 and one line. */
function writeFailed(fd, err) {
  if (err.code === 'EPIPE' || fd !== 1 || process.exitCode) return;
  process.exitCode = 9;
  process.stderr.write(`mailroom: cannot write to stdout: ${err.code === 'ENOSPC' ? 'no space left on device' : err.code}\n`);
}

/** Commander wraps help to a terminal narrower than HELP_WIDTH: leave that to it. */
function narrowTerminal(columns) {
  return columns !== undefined && columns < HELP_WIDTH;
}

/** --verbose prints stack traces: name the src/ lines in them (the maps ship for this alone). */
function wantsStackTraces(args) {
  return args.includes('--verbose') || args.includes('-v') || process.env.MAILROOM_DEBUG === '1';
}

/** Proxy variables (src/transport/agent.ts): with one set, undici's whole package is needed. */
const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'];

/** The commands built into one file each (scripts/build.mjs FAST_COMMANDS). */
const FAST_COMMANDS = ['check', 'batch'];

/**
 * The one-file bundle that runs this command line, or undefined for dist/main.js (start-up time:
 * scripts/build.mjs, "dist/fast/<command>.js"). Only a plain `check` or `batch`: anything that needs
 * a module the fast bundle leaves out (--sandbox, --jq, a proxy, help) or its source map
 * (--verbose's stack traces) goes to dist/main.js, as does anything this cannot read for sure
 * (options before the command, `--`).
 */
function fastBundle(args, env) {
  if (!FAST_COMMANDS.includes(args[0])) return undefined;
  const unsure = (a) => a === '--' || a === 'help' || a === '-h' || a === '--help' || a === '-v' || a === '--verbose' || a.startsWith('--sandbox') || a.startsWith('--jq');
  if (args.some(unsure) || env.MAILROOM_DEBUG === '1' || PROXY_VARIABLES.some((name) => env[name])) return undefined;
  return `../dist/fast/${args[0]}.js`;
}

/**
 * Where compiled code of the fast bundles is kept between runs: MAILROOM_CACHE_DIR, else the XDG
 * cache directory (~/.cache/mailroom), as the config and state directories are found.
 */
function cacheDir(env) {
  if (env.MAILROOM_CACHE_DIR) return env.MAILROOM_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || require('node:os').homedir(), '.cache'), 'mailroom');
}

/**
 * Runs a one-file bundle (dist/fast/<command>.js, a CommonJS script: scripts/build.mjs) with V8's
 * code cache: the bytecode of a run before is read back instead of parsing the file and compiling
 * each function it calls again (a 50-entry batch took 25 ms less CPU). The cache file is named by
 * the bundle's build (its first line) and Node's version; V8 checks it too (its version, flags and
 * the source) and compiles afresh when it does not fit. A missing, stale or unwritable cache only
 * costs that time: the command runs the same either way.
 */
function runFast(file, command, env = process.env) {
  const vm = require('node:vm');
  const v8 = require('node:v8');
  const source = readFileSync(file, 'utf8');
  const build = /^\/\/ mailroom-build ([0-9a-f]+)\n/.exec(source)?.[1];
  const dir = cacheDir(env);
  const cacheFile = build && join(dir, `${command}-${build}-${process.version}-${process.arch}.v8cache`);
  // Code in the cache runs as this user: it is taken only from a directory and a file that no one
  // else owns or may write (a cache under another user's HOME, say through sudo, is not).
  const ownDir = cacheFile !== undefined && onlyMine(dir);
  let cachedData;
  try {
    cachedData = ownDir && onlyMine(cacheFile) ? readFileSync(cacheFile) : undefined;
  } catch {
    // No cache yet: this run makes one.
  }
  const tag = v8.cachedDataVersionTag();
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __mailroomUrl, __mailroomImport) {${source}\n})`, { filename: file, cachedData });
  const bundleUrl = require('node:url').pathToFileURL(file);
  const mod = { exports: {} };
  if (cacheFile && ownDir !== false && (!cachedData || script.cachedDataRejected)) {
    // At exit, when the functions the run called are compiled too; only after a run that did its
    // job (exit 0): a first run stopped by a typo would leave a cache of its error path, which V8
    // takes from then on. The V8 flags the run set (src/v8-flags.ts) are undone first: V8 takes a
    // cache only under the flags it was made with, and none of these changes the code it holds.
    // Flags it cannot undo: no cache.
    process.once('exit', (code) => {
      if (code !== 0) return;
      for (const flag of globalThis[Symbol.for('mailroom.v8-flags.undo')] ?? []) v8.setFlagsFromString(flag);
      if (v8.cachedDataVersionTag() === tag) saveCache(dir, cacheFile, `${command}-`, script);
    });
  }
  script.runInThisContext()(mod.exports, require('node:module').createRequire(file), mod, file, require('node:path').dirname(file), bundleUrl.href, (specifier) => import(new URL(specifier, bundleUrl).href));
}

/**
 * Whether `path` is this user's and no one else may write it; undefined when it does not exist yet
 * (the cache directory is then made, 0700). Where there are no user ids (Windows), the user's own
 * profile directory is trusted.
 */
function onlyMine(path) {
  if (typeof process.getuid !== 'function') return true;
  let st;
  try {
    st = require('node:fs').statSync(path);
  } catch {
    return undefined;
  }
  return st.uid === process.getuid() && (st.mode & 0o022) === 0;
}

/** Writes the cache whole (by rename) and removes this command's caches of other builds; a failure is no error. */
function saveCache(dir, cacheFile, prefix, script) {
  const fs = require('node:fs');
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(tmp, cacheFile);
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith(prefix) && name.endsWith('.v8cache') && join(dir, name) !== cacheFile) fs.rmSync(join(dir, name), { force: true });
    }
  } catch {
    // A read-only or full disk: the next run compiles, as this one did.
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // Nothing was written.
    }
  }
}

module.exports = { answerFromCatalog, fastBundle };

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args[0] === '__complete') {
    // The shell completion scripts on TAB (`__complete profiles`): read the config file, load no CLI.
    import('../dist/complete.js');
  } else if (!answerFromCatalog(args)) {
    // Before the bundle loads: Node reads the maps of modules loaded after this only.
    if (wantsStackTraces(args)) process.setSourceMapsEnabled(true);
    const fast = fastBundle(args, process.env);
    if (fast) runFast(join(__dirname, fast), args[0]);
    else import('../dist/main.js');
  }
}

#!/usr/bin/env node
'use strict';
// CommonJS on purpose (bin/package.json): `mailroom --help` and `--version` are answered from
// dist/help.json, rendered from the real program at build time, before any ES module, Commander or
// the rest of the CLI loads; everything else runs dist/main.js.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { isatty } = require('node:tty');

/** Columns of help text; src/program.ts caps Commander's help at the same width. */
const HELP_WIDTH = 80;

function answerFromCatalog(args) {
  const last = args[args.length - 1];
  const isVersion = args.length === 1 && (last === '-V' || last === '--version');
  const isHelp = args.length === 0 || last === '--help' || last === '-h';
  if (!isVersion && !isHelp) return false;
  let catalog;
  try {
    catalog = JSON.parse(readFileSync(join(__dirname, '..', 'dist', 'help.json'), 'utf8'));
  } catch {
    return false;
  }
  if (isVersion) {
    quietOnClosedReader(process.stdout).write(`${catalog.version}\n`);
    return true;
  }
  const key = args.length === 0 ? '' : [...args.slice(0, -1), '--help'].join(' ');
  const screen = Object.hasOwn(catalog.screens, key) ? catalog.screens[key] : undefined;
  if (!screen || narrowTerminal(screen.out ? 1 : 2)) return false;
  if (screen.out) quietOnClosedReader(process.stdout).write(screen.out);
  if (screen.err) quietOnClosedReader(process.stderr).write(screen.err);
  return true;
}

/** `mailroom --help | head -1`: the reader left, nothing more to say (as src/context.ts does). */
function quietOnClosedReader(stream) {
  return stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

/** Commander wraps help to a terminal narrower than HELP_WIDTH: leave that to it. */
function narrowTerminal(fd) {
  if (!isatty(fd)) return false;
  const columns = (fd === 1 ? process.stdout : process.stderr).columns;
  return columns !== undefined && columns < HELP_WIDTH;
}

if (!answerFromCatalog(process.argv.slice(2))) import('../dist/main.js');

// Commander requires node:child_process at load time for executable sub-commands, which mailroom
// does not use; loading it (with net, dgram, streams) costs ~3 ms on every start. This stand-in,
// wired in by scripts/build.mjs, loads the real module only if Commander ever touches it.
'use strict';
/* global module, require */
module.exports = new Proxy(
  {},
  {
    get(_target, key) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS on purpose: a synchronous, lazy load
      return require('node:child_process')[key];
    },
  },
);

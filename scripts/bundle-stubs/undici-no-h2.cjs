// Stand-in for undici's HTTP/2 client in the bundle (see scripts/build.mjs): mailroom never sets
// allowH2, so undici never calls it, and loading node:http2 (and tls with it) costs ~8 ms of
// start-up on every API command.
'use strict';
/* global module */
module.exports = function connectH2() {
  throw new Error('HTTP/2 is not bundled in mailroom');
};

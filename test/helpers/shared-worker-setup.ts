import { resetSecrets } from '../../src/secrets.js';

// The unit and e2e projects run their files one after another in shared workers (isolate: false,
// see vitest.config.ts), so modules keep their state between files. The secrets a file held or
// revealed (src/secrets.ts keeps them module-wide) must not mask the next file's output: every
// file starts with none, as in a fresh process.
resetSecrets();

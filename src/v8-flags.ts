import { setFlagsFromString } from 'node:v8';

/** Where the flags that undo what setV8Flag set are listed, for bin/mailroom.js (a global: the launcher is not part of the bundle). */
const UNDO = Symbol.for('mailroom.v8-flags.undo');

/**
 * Sets a V8 flag while the process runs, and records the flags that put V8 back as it was (`undo`,
 * the flag's implications included). V8 takes a code cache only under the flags it was made with,
 * so bin/mailroom.js undoes these before it writes the fast bundles' cache at exit.
 */
export function setV8Flag(flag: string, undo: string[]): void {
  setFlagsFromString(flag);
  const global = globalThis as { [UNDO]?: string[] };
  (global[UNDO] ??= []).push(...undo);
}

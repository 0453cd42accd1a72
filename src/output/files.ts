import { writeSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { redactText } from '../secrets.js';

/**
 * The only writers of the files mailroom produces (batch journal, --report, --failed, the listener's
 * journal): every line passes the secret guard of secrets.ts first, as stdout and stderr do. A
 * lint rule (eslint.config.js) keeps node:fs's writing functions out of every other module, except
 * the config store and the sandbox's state, which hold keys by design.
 */
export function writeTextSync(fd: number, text: string): void {
  writeSync(fd, redactText(text));
}

export function appendText(path: string, text: string, mode: number): Promise<void> {
  return appendFile(path, redactText(text), { mode });
}

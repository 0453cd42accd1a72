import { writeSync } from 'node:fs';
import { appendFile, open } from 'node:fs/promises';
import { redactText } from '../secrets.js';

/**
 * The only writers of the files mailroom produces (batch journal, --report, --failed, the listener's
 * journal): every line passes the secret guard of secrets.ts first, as stdout and stderr do. A
 * lint rule (eslint.config.js) keeps node:fs's writing functions out of every other module, except
 * the config store and the sandbox's state, which hold keys by design.
 */
export function writeTextSync(fd: number, text: string): number {
  const bytes = Buffer.from(redactText(text));
  // A write(2) may write less than asked (a disk filling up): the rest, or the error, follows.
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  return bytes.length;
}

export function appendText(path: string, text: string, mode: number): Promise<void> {
  return appendFile(path, redactText(text), { mode });
}

/** An append-only file whose appends are on disk (written and fdatasync'ed) when they resolve. */
export interface DurableAppender {
  append(text: string): Promise<void>;
  close(): Promise<void>;
}

export async function openDurableAppender(path: string, mode: number): Promise<DurableAppender> {
  const file = await open(path, 'a', mode);
  return {
    async append(text) {
      await file.write(redactText(text));
      await file.datasync();
    },
    close: () => file.close(),
  };
}

import { writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { redactText } from '../secrets.js';

/**
 * The only writers of the files mailroom produces (batch journal, --report, --failed, the listener's
 * journal): every line passes the secret guard of secrets.ts first, as stdout and stderr do. A
 * lint rule (eslint.config.js) keeps node:fs's writing functions out of every other module, except
 * the config store, the sandbox's state and its recorded address, which hold keys by design.
 */
export function writeTextSync(fd: number, text: string): number {
  const bytes = Buffer.from(redactText(text));
  // A write(2) may write less than asked (a disk filling up): the rest, or the error, follows.
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  return bytes.length;
}

/** An append-only file whose appends are on disk (written and fdatasync'ed) when they resolve. */
export interface DurableAppender {
  append(text: string): Promise<void>;
  close(): Promise<void>;
}

/** The calls of node:fs/promises' FileHandle an appender makes (tests give a disk that fails). */
export type AppendHandle = Pick<FileHandle, 'write' | 'datasync' | 'truncate' | 'stat' | 'close'>;

/**
 * Each append is written whole (a short write goes on with the rest, as writeTextSync does) and
 * synced before it resolves; an append that fails is cut back off, so the file never keeps a torn
 * line that would make a reader refuse everything after it.
 */
export async function openDurableAppender(path: string, mode: number, opener: (path: string, flags: string, mode: number) => Promise<AppendHandle> = open): Promise<DurableAppender> {
  const file = await opener(path, 'a', mode);
  let size = (await file.stat()).size;
  return {
    async append(text) {
      const bytes = Buffer.from(redactText(text));
      try {
        for (let done = 0; done < bytes.length; ) {
          const { bytesWritten } = await file.write(bytes, done, bytes.length - done);
          if (bytesWritten === 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
          done += bytesWritten;
        }
        await file.datasync();
      } catch (err) {
        await file.truncate(size).catch(() => undefined);
        throw err;
      }
      size += bytes.length;
    },
    close: () => file.close(),
  };
}

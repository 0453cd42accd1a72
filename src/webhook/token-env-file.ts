import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { usageError } from '../errors.js';
import { fsReason } from '../files.js';
import { TOKEN_ENV } from './token.js';

const LINE = new RegExp(`^[ \\t]*(?:export[ \\t]+)?${TOKEN_ENV}=.*$`, 'm');

/**
 * `webhooks listen --write-env <file>`: puts `MAILROOM_WEBHOOK_TOKEN=<token>` in a NAME=value file
 * your app (or dotenv) reads, replacing that line if the file has one and keeping every other line.
 * Written beside the file and renamed over it, with mode 0600 (it holds a secret): a reader never
 * sees half a file. Written directly, never through the output guard that masks tokens: putting
 * the token there is what was asked.
 */
export async function writeTokenEnv(path: string, token: string, cwd: string): Promise<void> {
  if (path === '') throw usageError('--write-env: the file name is empty');
  const file = resolve(cwd, path);
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A directory is a place it cannot write; the read (to keep the file's other lines) only finds it first.
    if (code === 'EISDIR') throw usageError(`--write-env: cannot write ${path}: ${fsReason(err, 'write')}`);
    if (code !== 'ENOENT') throw usageError(`--write-env: cannot read ${path}: ${fsReason(err, 'read')}`);
  }
  const line = `${TOKEN_ENV}=${token}`;
  const next = LINE.test(text) ? text.replace(LINE, line) : `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`;
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  try {
    await writeFile(temp, next, { mode: 0o600, flag: 'wx' });
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw usageError(`--write-env: cannot write ${path}: ${fsReason(err, 'write')}`);
  }
}

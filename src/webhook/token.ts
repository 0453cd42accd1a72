import { usageError } from '../errors.js';
import { holdSecret } from '../secrets.js';
import { readSecretFile, readSecretFileText } from '../input/secret-file.js';

/** Env var holding a webhook signing token, so it need not appear in argv or shell history. */
export const TOKEN_ENV = 'MAILROOM_WEBHOOK_TOKEN';

/** The shortest token accepted, as the API's webhook creation accepts (`token`: 8 to 256 characters). */
export const MIN_TOKEN_LENGTH = 8;

/** `MAILROOM_WEBHOOK_TOKEN=…` in a file of NAME=value lines (the one `listen --write-env` writes, a .env). */
const ENV_LINE = new RegExp(`^[ \\t]*(?:export[ \\t]+)?${TOKEN_ENV}=[ \\t]*(["']?)([^\\s"']*)\\1[ \\t]*\\r?$`, 'm');

/**
 * The signing token from `--token-file` (relative to `cwd`; the token alone, or a NAME=value file
 * holding MAILROOM_WEBHOOK_TOKEN) or `--token`, else MAILROOM_WEBHOOK_TOKEN; undefined when none is
 * set. A token that cannot be one (blank, with whitespace, shorter than 8) is a usage error naming
 * where it came from, never echoing it: a stray space or an unset variable expanded to nothing would
 * otherwise make every delivery fail as "wrong token".
 */
export function tokenFrom(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, file: string | undefined, cwd: string): string | undefined {
  if (flag !== undefined && file !== undefined) throw usageError('use --token or --token-file, not both');
  if (file !== undefined) return checked(fromFile(file, cwd), '--token-file');
  if (flag !== undefined) return checked(flag, '--token');
  const value = env[TOKEN_ENV];
  // An empty variable is an unset one (`MAILROOM_WEBHOOK_TOKEN= cmd`); whitespace is a mistake.
  if (value === undefined || value === '') return undefined;
  return checked(value, TOKEN_ENV);
}

function fromFile(file: string, cwd: string): string {
  if (file !== '-') {
    const line = ENV_LINE.exec(readSecretFileText(file, '--token-file', cwd));
    if (line) return line[2]!;
  }
  return readSecretFile(file, '--token-file', cwd);
}

/** `value` as a signing token from `source` (a flag or variable name), or a usage error saying what is wrong with it (never echoing it). */
export function checked(value: string, source: string): string {
  if (value.trim() === '') throw usageError(`${source}: the signing token is empty or only whitespace`);
  if (/\s/.test(value)) throw usageError(`${source}: the signing token contains whitespace; a token is one word (wht_…)`);
  if (value.length < MIN_TOKEN_LENGTH) throw usageError(`${source}: the signing token is too short (${value.length} characters; at least ${MIN_TOKEN_LENGTH})`);
  holdSecret(value);
  return value;
}

export function requireToken(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, why: string, file: string | undefined, cwd: string): string {
  const token = tokenFrom(flag, env, file, cwd);
  if (token === undefined) throw usageError(`a webhook signing token is needed ${why}: pass --token-file <path>, set ${TOKEN_ENV}, or pass --token <wht_…>`);
  return token;
}

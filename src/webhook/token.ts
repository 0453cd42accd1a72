import { usageError } from '../errors.js';
import { holdSecret } from '../secrets.js';
import { readSecretFile } from '../input/secret-file.js';

/** Env var holding a webhook signing token, so it need not appear in argv or shell history. */
export const TOKEN_ENV = 'MAILROOM_WEBHOOK_TOKEN';

/** The signing token from `--token-file` (relative to `cwd`) or `--token`, else MAILROOM_WEBHOOK_TOKEN; undefined when none is set. */
export function tokenFrom(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, file: string | undefined, cwd: string): string | undefined {
  if (flag !== undefined && file !== undefined) throw usageError('use --token or --token-file, not both');
  const value = file !== undefined ? readSecretFile(file, '--token-file', cwd) : (flag ?? env[TOKEN_ENV]);
  if (value === undefined || value === '') return undefined;
  holdSecret(value);
  return value;
}

export function requireToken(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, why: string, file: string | undefined, cwd: string): string {
  const token = tokenFrom(flag, env, file, cwd);
  if (token === undefined) throw usageError(`a webhook signing token is needed ${why}: pass --token-file <path>, set ${TOKEN_ENV}, or pass --token <wht_…>`);
  return token;
}

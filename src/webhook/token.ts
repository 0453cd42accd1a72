import { usageError } from '../errors.js';
import { holdSecret } from '../secrets.js';

/** Env var holding a webhook signing token, so it need not appear in argv or shell history. */
export const TOKEN_ENV = 'MAILROOM_WEBHOOK_TOKEN';

/** The signing token from `--token`, else MAILROOM_WEBHOOK_TOKEN; undefined when neither is set. */
export function tokenFrom(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = flag ?? env[TOKEN_ENV];
  if (value === undefined || value === '') return undefined;
  holdSecret(value);
  return value;
}

export function requireToken(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, why: string): string {
  const token = tokenFrom(flag, env);
  if (token === undefined) throw usageError(`a webhook signing token is needed ${why}: pass --token <wht_…> or set ${TOKEN_ENV}`);
  return token;
}

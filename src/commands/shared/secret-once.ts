import { usageError } from '../../errors.js';

/** What decides whether a new secret reaches stdout: -q prints nothing, `--json <fields>` only those fields. */
export interface SecretOutput {
  quiet?: boolean;
  jsonFields?: readonly string[];
}

/**
 * The one rule for every command that shows a new secret once (keys create and rotate, webhooks
 * create, `api`'s creating answers): it is printed in full to stdout, once. Output that would throw
 * that only copy away (-q, or a `--json` field list without the secret's field) is refused before
 * anything is sent, unless the caller keeps the secret another way (`--save-as`, or a token of
 * their own). Call it only when nothing else keeps it.
 */
export function refuseDiscardingSecret(out: SecretOutput, what: 'secret' | 'webhook token', field: 'secretKey' | 'token' | 'apiKey', fix: { quiet: string; fields?: string }): void {
  if (out.quiet) throw usageError(`-q would discard the new ${what} (it is shown only once): ${fix.quiet}`);
  if (out.jsonFields && !out.jsonFields.includes(field)) {
    throw usageError(`--json ${out.jsonFields.join(',')} would discard the new ${what} (it is shown only once): add ${field} to the fields${fix.fields ? `, or ${fix.fields}` : ''}`);
  }
}

import { usageError } from '../errors.js';

/**
 * The one rule for every command that shows a new secret once (keys create and rotate, webhooks
 * create, `api`'s creating answers): it is printed in full to stdout, once, and `-q`, which would
 * throw that only copy away, is refused before anything is sent, unless the caller keeps the secret
 * another way (`--save-as`, or a token of their own). Call it only when nothing else keeps it.
 */
export function refuseQuietDiscard(quiet: boolean | undefined, what: 'secret' | 'webhook token', fix: string): void {
  if (quiet) throw usageError(`-q would discard the new ${what} (it is shown only once): ${fix}`);
}

import type { Context } from '../../context.js';
import type { Unreadable } from '../../batch/journals.js';
import { oneLine } from '../../output/one-line.js';
import { notice } from '../../output/notice.js';

/** A file in the state directory that is not a journal mailroom can read: named on stderr, left alone. */
export function noteUnreadable(ctx: Pick<Context, 'io'>, unreadable: readonly Unreadable[]): void {
  for (const u of unreadable) notice(ctx.io.err, 'note', `skipped ${oneLine(u.path)}: ${oneLine(u.reason)}`);
}

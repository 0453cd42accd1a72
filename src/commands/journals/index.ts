import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import * as list from './list.js';
import * as prune from './prune.js';
import * as show from './show.js';

/**
 * `batch journals`: a sub-command of `batch`, whose operand is a file. Commander takes a first
 * operand that names a sub-command as that command, so a file literally named `journals` is sent
 * as `mailroom batch ./journals` (docs/batch.md); `batch journals` alone lists, never sends.
 */
export function register(batch: Command, ctx: Context): void {
  const journals = batch
    .command('journals')
    .description('list, show and prune the journals of earlier runs in the state directory')
    .addHelpText(
      'after',
      `
The state directory is $MAILROOM_STATE_DIR/batches, else $XDG_STATE_HOME/mailroom/batches
(~/.local/state/mailroom/batches). A journal of a run that sent everything is "finished"; an
unfinished one is what --resume needs to send the rest exactly once, so prune keeps it unless
told --force. To send a file named journals: mailroom batch ./journals

Examples:
  $ mailroom batch journals
  $ mailroom batch journals show 3f9a0c1d2e4b
  $ mailroom batch journals prune --older-than 30d`,
    );
  // Commander reads batch's options anywhere after `batch` (the global ones must stay free to go
  // anywhere), so `journals prune --dry-run` sets batch's --dry-run: prune takes it as its own. Any
  // other of batch's options here is a mistake, refused before anything is touched.
  journals.hook('preAction', (_journals, action) => {
    const given = batch.options.find((o) => batch.getOptionValueSource(o.attributeName()) === 'cli' && !(o.long === '--dry-run' && action.name() === 'prune'));
    if (given) throw usageError(`${given.long ?? given.flags} is an option of sending a batch, not of batch journals ${action.name()}`);
  });
  for (const mod of [list, show, prune]) mod.register(journals, ctx);
}

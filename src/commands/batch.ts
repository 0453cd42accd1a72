import type { Command } from 'commander';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';

// PLACEHOLDER: replaced by the issue that builds this command.
export function register(parent: Command, _ctx: Context): void {
  parent
    .command('batch')
    .description('(not built yet)')
    .action(() => {
      throw new CliError('unexpected', 'batch is not built yet');
    });
}

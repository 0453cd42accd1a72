import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { SendFlags } from '../input/send-flags.js';
import { repeatable } from './shared/repeatable-options.js';
import { verb } from './verb.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('send')
    .description('send one email: raw HTML, a stored template, or a React email component rendered locally')
    .option('--from <address>', 'sender: address or "Name <address>" (raw)')
    .option('--from-name <name>', 'sender display name (raw)')
    .option('--to <address>', 'recipient address')
    .option('--subject <text>', 'subject line (raw)')
    .option('--html <html>', 'HTML body (raw)')
    .option('--html-file <path|->', 'read the HTML body from a file or stdin (raw)')
    .option('--text <text>', 'plain-text body; generated from the HTML when omitted (raw)')
    .option('--text-file <path|->', 'read the plain-text body from a file or stdin (raw)')
    .option('--preview-text <text>', 'inbox preview text (raw)')
    .option('--reply-to <address>', 'reply-to address (raw)')
    .option('--property <key=value>', 'contact property, repeatable (raw)', repeatable)
    .option('--template <name>', 'send the stored template of this name')
    .option('--var <key=value>', 'template variable, repeatable', repeatable)
    .option('--vars <json>', 'template variables as a JSON object')
    .option('--vars-file <path|->', 'template variables from a JSON file')
    .option('--react <file.tsx|jsx>', 'render this React email component locally and send its HTML')
    .option('--props <json>', 'props for the --react component, as a JSON object')
    .option('--track-clicks', 'track clicks (default on)')
    .option('--no-track-clicks', 'do not track clicks')
    .option('--track-opens', 'track opens (default: on for templates, off for raw)')
    .option('--no-track-opens', 'do not track opens')
    .option('--group-by <id>', 'analytics grouping identifier')
    .option('--send-at <time>', 'schedule: ISO 8601 with a zone, or +30m, +2h, +3d (at most 90 days ahead)')
    .option('--idempotency-key <key>', 'duplicate-send guard (default: a new UUID per send)')
    .option('--file <path|->', 'the whole email as a JSON object (raw or templated); flags override its fields')
    .option('--dry-run', 'validate and print the exact request body; send nothing')
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom send --from you@example.com --to a@example.com --subject Hi --html '<p>Hi!</p>'
  $ mailroom send --from 'Acme <ops@example.com>' --to a@example.com --subject Report --html-file report.html --send-at +2h
  $ mailroom send --template welcome --to a@example.com --var name=Ada --var plan=pro
  $ mailroom send --react emails/Welcome.tsx --props '{"name":"Ada"}' --from you@example.com --to a@example.com --subject Welcome
  $ echo '{"template":"hi","to":"a@example.com"}' | mailroom send --file - --dry-run

Every send carries an idempotency key, so a retried request never sends twice.
Prints the email (id, status, ...) on a terminal, the API's email object as JSON when piped or with --json.`,
    )
    .action(verb(ctx, () => import('./send.run.js'), (flags: SendFlags, _operands, cmd) => ({ flags, command: cmd })));
}

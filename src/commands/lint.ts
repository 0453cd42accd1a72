import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Context } from '../context.js';
import { choiceParser } from '../input/choice.js';
import { parseIntegerOption } from './shared/option-parsers.js';
import type { LintOptions } from './lint.run.js';
import { checkDependentOptions } from './shared/dependent-options.js';
import { verb } from './verb.js';

const commaList = (value: string, previous: string[] = []): string[] => [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];

function parseScore(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('--spam-threshold must be a number, such as 5 or 3.5');
  return n;
}

const SEVERITIES = ['error', 'warning', 'info'] as const;
const FORMATS = ['table', 'json', 'sarif', 'junit'] as const;

export function register(parent: Command, ctx: Context): void {
  parent
    .command('lint')
    .argument('[inputs...]', 'HTML files (a .txt beside one is its plain-text part), React email files (.tsx, .jsx), or "-" for HTML on stdin')
    .description('check emails before they are sent: size, links, images, text part, title, preheader, placeholders; sends nothing')
    .option('--file <path|->', 'check one email object, as `send --file` takes it (raw or templated)')
    .option('--batch <path|->', 'check every entry of a batch file (JSON, NDJSON or CSV); each distinct body once')
    .option('--templates <dir>', "with --file or --batch: the templates' sources, as <dir>/<name>.html, to check templated entries with their variables")
    .option('--props <json>', 'props for the React email files, as a JSON object')
    .addOption(new Option('--fail-on <severity>', 'exit 10 when a finding is at or above this: error, warning or info').choices(SEVERITIES).default('error').argParser(choiceParser('--fail-on', SEVERITIES)))
    .addOption(new Option('--format <format>', 'table (on a terminal), json (when piped; same as --json), sarif or junit').choices(FORMATS).argParser(choiceParser('--format', FORMATS)))
    .option('--clients <list>', 'check HTML and CSS support in these email clients (caniemail data): gmail, outlook, apple-mail, yahoo, ... or outlook.windows; comma-separated', commaList)
    .option('--spam', 'score each email with the local SpamAssassin (spamc, else spamassassin -L: no network); said to be skipped when not installed')
    .addOption(new Option('--spam-threshold <score>', "a score at or over this is an error (default SpamAssassin's own, 5.0); implies --spam").argParser(parseScore))
    .option('--check-links', 'also fetch every absolute http(s) link and image (HEAD, then GET) and report its status')
    .addOption(new Option('--max-links <n>', 'with --check-links: fetch at most this many distinct URLs').default(100).argParser(parseIntegerOption('--max-links', 1, 10_000)))
    .addOption(new Option('--link-timeout <ms>', 'with --check-links: time for each link, redirects included').default(10_000).argParser(parseIntegerOption('--link-timeout', 1, 300_000)))
    .addHelpText(
      'after',
      `
Examples:
  $ mailroom lint emails/*.html
  $ mailroom lint emails/*.html --fail-on error --format sarif > lint.sarif
  $ mailroom lint emails/Welcome.tsx --props '{"name":"Ada"}' --check-links
  $ mailroom lint emails/*.html --clients gmail,outlook,apple-mail --fail-on warning
  $ mailroom lint emails/*.html --spam-threshold 3
  $ mailroom lint --batch emails.ndjson --templates templates/ --format junit > lint.xml
  $ render-email | mailroom lint -

Every finding has a check id, a severity (error, warning, info) and a fix (docs/checking-emails.md).
Exit codes: 0 nothing at or above --fail-on; 10 something is; 2 bad input (unreadable file, bad flag).`,
    )
    .action(verb(ctx, () => import('./lint.run.js'), (flags: Omit<LintOptions, 'inputs'>, inputs, cmd): LintOptions => {
      checkDependentOptions('lint', cmd);
      return { ...flags, inputs };
    }));
}

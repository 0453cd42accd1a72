import { Option, type Command } from 'commander';
import type { Context, Globals } from '../context.js';
import { CliError, usageError } from '../errors.js';
import { parseIntegerOption } from './options.js';
import { choiceParser } from '../input/choice.js';
import { terminalText } from '../output/one-line.js';

const STATUSES = ['SENT', 'SCHEDULED'] as const;

/** Where `mailroom sandbox` listens by default, and where the commands that talk to one look for it. */
export const SANDBOX_DEFAULT_PORT = 4025;
export const SANDBOX_DEFAULT_URL = `http://127.0.0.1:${SANDBOX_DEFAULT_PORT}`;
const DEFAULT_URL = SANDBOX_DEFAULT_URL;

/** A running sandbox's root URL: --base-url, else MAILROOM_BASE_URL, else the default; a trailing /v1 is dropped. */
export function sandboxRoot(globals: Globals, ctx: Context): string {
  const base = (globals.baseUrl ?? ctx.env.MAILROOM_BASE_URL ?? DEFAULT_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
  try {
    new URL(base);
  } catch {
    throw usageError(`invalid base URL ${base}`);
  }
  return base;
}

/**
 * One call to a sandbox's inspection or control endpoints: nobody there or a 5xx exits 6, a refusal
 * (403: not addressed as localhost) 3, not a sandbox (no such route) 4; another 404 is answered.
 */
export async function sandboxCall(
  root: string,
  method: 'GET' | 'POST',
  path: string,
  globals: Globals,
  ctx: Context,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  // undici is CommonJS: its bundled chunk exposes only a default export.
  const { request } = (await import('undici')).default;
  let res;
  try {
    res = await request(`${root}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(globals.timeout ?? 10_000)]),
    });
  } catch (err) {
    const code = (err as { code?: string }).code ?? (err as Error).name;
    throw new CliError('network', `cannot reach a sandbox at ${root}: ${code}`, { hints: ['start one with: mailroom sandbox'], cause: err });
  }
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (res.statusCode === 200 && parsed !== undefined) return { status: 200, body: parsed };
  const message = (parsed as { message?: unknown } | undefined)?.message;
  const detail = typeof message === 'string' ? `: ${message}` : '';
  if (res.statusCode === 404 && /^No route /.test(typeof message === 'string' ? message : 'No route')) {
    throw new CliError('rejected', `${root} is not a mailroom sandbox (no ${path.split('?')[0]})`);
  }
  if (res.statusCode === 404) return { status: 404, body: parsed };
  const kind = res.statusCode === 401 || res.statusCode === 403 ? 'auth' : res.statusCode >= 500 ? 'network' : 'rejected';
  throw new CliError(kind, `the sandbox answered ${res.statusCode}${detail}`);
}

interface EmailRow {
  id: string;
  status: string;
  type: string;
  to: string;
  from?: string;
  subject?: string;
  template?: string;
  createdAt: string;
  html: string;
  text: string;
}

interface DeliveryRow {
  id?: string;
  event: string;
  url: string;
  attempt: number;
  statusCode?: number;
  error?: string;
  nextRetryAt?: string;
  createdAt: string;
}

interface EmailsFlags {
  to?: string;
  search?: string;
  status?: string;
  last?: number;
}

export function register(sandbox: Command, ctx: Context): void {
  const globals = (cmd: Command) => cmd.optsWithGlobals<Globals>();
  const where = `\nThe sandbox is found at --base-url, else MAILROOM_BASE_URL, else ${DEFAULT_URL}.`;

  sandbox
    .command('emails')
    .description('list the emails a running sandbox caught, newest last')
    .option('--to <text>', 'only recipients containing this (case-insensitive)')
    .option('--search <text>', 'only emails whose to, from, subject, template or id contains this')
    .addOption(new Option('--status <status>', 'only SENT or SCHEDULED emails').choices(STATUSES).argParser(choiceParser('--status', STATUSES)))
    .addOption(new Option('--last <n>', 'only the newest n').argParser(parseIntegerOption('--last', 1)))
    .addHelpText(
      'after',
      `${where}

Examples:
  $ mailroom sandbox emails --last 5
  $ mailroom sandbox emails --to ada@ --json | jq -r '.[].id'`,
    )
    .action(async (flags: EmailsFlags, cmd: Command) => runEmails(flags, globals(cmd), ctx));

  sandbox
    .command('email')
    .description('show one caught email: its fields and text, or only its HTML, text or JSON')
    .argument('<id>', 'the email id (trs_…), as `sandbox emails` lists it')
    .option('--html', 'print only the HTML body')
    .option('--text', 'print only the text body')
    .addHelpText(
      'after',
      `${where} --json prints the stored email as JSON (also the default when piped).

Examples:
  $ mailroom sandbox email trs_123
  $ mailroom sandbox email trs_123 --html > email.html`,
    )
    .action(async (id: string, flags: { html?: boolean; text?: boolean }, cmd: Command) => runEmail(id, flags, globals(cmd), ctx));

  sandbox
    .command('deliveries')
    .description('list the webhook delivery attempts of a running sandbox, newest last')
    .addOption(new Option('--last <n>', 'only the newest n').argParser(parseIntegerOption('--last', 1)))
    .addHelpText(
      'after',
      `${where} --json prints every field, the signed body and signature included.

Examples:
  $ mailroom sandbox deliveries --last 10
  $ mailroom sandbox deliveries --json | jq -r '.[] | select(.error) | .url'`,
    )
    .action(async (flags: { last?: number }, cmd: Command) => runDeliveries(flags, globals(cmd), ctx));

  sandbox
    .command('open')
    .description("print the URL of a running sandbox's inbox; --browser also opens it")
    .argument('[id]', 'an email id: its page instead of the list')
    .option('--browser', 'open the URL in the default browser')
    .addHelpText(
      'after',
      `${where} --browser uses $BROWSER when set, else the system's opener (xdg-open, open, start).

Examples:
  $ mailroom sandbox open
  $ mailroom sandbox open trs_123 --browser`,
    )
    .action(async (id: string | undefined, flags: { browser?: boolean }, cmd: Command) => runOpen(id, flags, globals(cmd), ctx));
}

export async function runEmails(flags: EmailsFlags, globals: Globals, ctx: Context): Promise<void> {
  const root = sandboxRoot(globals, ctx);
  const query = new URLSearchParams();
  if (flags.to !== undefined) query.set('to', flags.to);
  if (flags.search !== undefined) query.set('q', flags.search);
  if (flags.status !== undefined) query.set('status', flags.status);
  if (flags.last !== undefined) query.set('limit', String(flags.last));
  const qs = query.toString();
  const { body } = await sandboxCall(root, 'GET', `/_sandbox/emails${qs ? `?${qs}` : ''}`, globals, ctx);
  const { items, total } = body as { items: EmailRow[]; total: number };
  const { outputMode, printJson, printTable } = await import('../output/index.js');
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') return printJson(ctx, items);
  await printTable(
    ctx,
    items,
    [
      { header: 'ID', value: (e) => e.id },
      { header: 'STATUS', value: (e) => e.status },
      { header: 'TO', value: (e) => e.to, kind: 'text' },
      { header: 'SUBJECT', value: (e) => e.subject ?? `(template ${e.template})`, kind: 'text' },
      { header: 'CREATED', value: (e) => e.createdAt, kind: 'date' },
    ],
    'no emails',
  );
  if (items.length < total) ctx.io.err.write(`Showing the newest ${items.length} of ${total}.\n`);
}

export async function runEmail(id: string, flags: { html?: boolean; text?: boolean }, globals: Globals, ctx: Context): Promise<void> {
  const picked = [flags.html && '--html', flags.text && '--text', globals.json && '--json'].filter(Boolean);
  if (picked.length > 1) throw usageError(`${picked.join(' and ')} cannot be used together: pick one`);
  const root = sandboxRoot(globals, ctx);
  const res = await sandboxCall(root, 'GET', `/_sandbox/emails/${encodeURIComponent(id)}`, globals, ctx);
  if (res.status === 404) throw new CliError('rejected', `no email ${id} in the sandbox at ${root}`, { hints: ['list them with: mailroom sandbox emails'] });
  const email = (res.body as { email: EmailRow & Record<string, unknown> }).email;
  if (globals.quiet) return;
  if (flags.html || flags.text) {
    const body = flags.html ? email.html : email.text;
    ctx.io.out.write(body.endsWith('\n') ? body : `${body}\n`);
    return;
  }
  const { outputMode, printJson, printKeyValues } = await import('../output/index.js');
  if (outputMode(ctx, globals).format === 'json') return printJson(ctx, email);
  await printKeyValues(ctx, [
    ['id', email.id],
    ['status', email.status],
    ['from', email.from],
    ['to', email.to],
    ['subject', email.subject],
    ['template', email.template],
    ['created', email.createdAt],
    ['send at', email.sendAt],
    ['inbox', `${root}/inbox/${encodeURIComponent(email.id)}`],
  ]);
  const text = terminalText(email.text);
  ctx.io.out.write(`\n${text.endsWith('\n') ? text : `${text}\n`}`);
}

export async function runDeliveries(flags: { last?: number }, globals: Globals, ctx: Context): Promise<void> {
  const root = sandboxRoot(globals, ctx);
  const { body } = await sandboxCall(root, 'GET', '/_sandbox/deliveries', globals, ctx);
  const all = (body as { items: DeliveryRow[] }).items;
  const items = flags.last === undefined ? all : all.slice(-flags.last);
  const { outputMode, printJson, printTable } = await import('../output/index.js');
  const mode = outputMode(ctx, globals);
  if (mode.quiet) return;
  if (mode.format === 'json') return printJson(ctx, items);
  await printTable(
    ctx,
    items,
    [
      { header: 'WHEN', value: (d) => d.createdAt, kind: 'date' },
      { header: 'EVENT', value: (d) => d.event },
      { header: 'URL', value: (d) => d.url, kind: 'text' },
      { header: 'ATTEMPT', value: (d) => d.attempt },
      { header: 'RESULT', value: (d) => (d.error === undefined ? d.statusCode : `${d.error}`), kind: 'text' },
      { header: 'NEXT RETRY', value: (d) => d.nextRetryAt, kind: 'date' },
    ],
    'no deliveries',
  );
  if (items.length < all.length) ctx.io.err.write(`Showing the newest ${items.length} of ${all.length}.\n`);
}

export async function runOpen(id: string | undefined, flags: { browser?: boolean }, globals: Globals, ctx: Context): Promise<void> {
  const root = sandboxRoot(globals, ctx);
  // Only a URL that answers is printed: a wrong port fails here, not in the browser.
  await sandboxCall(root, 'GET', '/_sandbox/emails?limit=0', globals, ctx);
  let url = `${root}/`;
  if (id !== undefined) {
    const res = await sandboxCall(root, 'GET', `/_sandbox/emails/${encodeURIComponent(id)}`, globals, ctx);
    if (res.status === 404) throw new CliError('rejected', `no email ${id} in the sandbox at ${root}`);
    url = `${root}/inbox/${encodeURIComponent(id)}`;
  }
  if (!globals.quiet) ctx.io.out.write(`${url}\n`);
  if (flags.browser) {
    const { openInBrowser } = await import('./open-browser.js');
    await openInBrowser(url, ctx.env);
  }
}

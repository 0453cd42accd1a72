import { figure } from '../plural.js';
import { countEmails, filterEmails, isFiltered, type EmailFilter } from './email-query.js';
import { countRemoteResources } from './email-html.js';
import { ASSET_VERSION } from './inbox-assets.js';
import { SIGNATURE_HEADER } from '../webhook/signature.js';
import { isDropped, type DeliveryRecord, type InboxEmail, type SandboxState } from './state.js';
import { escapeHtml } from './templates.js';
import { withText } from './text.js';
import { emailChecks } from './email-checks.js';
import type { LintReport } from '../lint/formats.js';

/**
 * The inbox pages, rendered on the server (they work without the script, which only adds live
 * updates, keyboard navigation, unread marks and the buttons). Scripts and styles come from the
 * sandbox itself; an email's scripts never run: its HTML is only ever shown in a sandboxed frame
 * without `allow-scripts`, served with its own policy (see email-html.ts).
 */
export const INBOX_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const PAGE_SIZE = 50;

const h = escapeHtml;

type Section = 'inbox' | 'deliveries' | 'none';

/**
 * `scope`: the workspace a page shows when it is not the first (its links, and its live stream,
 * keep to it).
 */
function layout(title: string, section: Section, body: string, state: SandboxState | undefined, scope?: string): string {
  const inScope = query({ workspace: scope });
  const nav = state
    ? `<nav class="sections"><a href="/${h(inScope)}"${section === 'inbox' ? ' aria-current="page"' : ''}>Inbox <span class="n" data-count="emails">${figure(state.emailTotal)}</span></a>` +
      `<a href="/deliveries${h(inScope)}"${section === 'deliveries' ? ' aria-current="page"' : ''}>Deliveries <span class="n" data-count="deliveries">${figure(state.deliveryTotal)}</span></a></nav>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${h(title)} · mailroom sandbox</title>
<link rel="stylesheet" href="/_inbox/inbox.css?v=${ASSET_VERSION}"><script src="/_inbox/inbox.js?v=${ASSET_VERSION}" defer></script></head>
<body data-section="${section}" data-state="${state ? liveCounts(state) : ''}"${scope === undefined ? '' : ` data-workspace="${h(scope)}"`}><header class="top"><a class="brand" href="/">mailroom <span>sandbox</span></a>${nav}<span class="live" id="live" title="Live updates: connecting">●</span></header>
<main>${body}</main>
<footer><kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> open · <kbd>/</kbd> search · <kbd>u</kbd> back to the list</footer></body></html>`;
}

function liveCounts(state: SandboxState): string {
  const c = countEmails(state);
  return `${c.total},${c.scheduled},${state.deliveryTotal}`;
}

/** "3 min ago"; the exact time is in the title (shown on hover) and the datetime attribute. */
export function timeTag(iso: string, now: number): string {
  return `<time datetime="${h(iso)}" title="${h(iso)}">${h(relative(iso, now))}</time>`;
}

export function relative(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((t - now) / 1000);
  const abs = Math.abs(s);
  const [n, unit] = abs < 45 ? [0, ''] : abs < 3600 ? [Math.round(abs / 60), 'min'] : abs < 86_400 ? [Math.round(abs / 3600), 'h'] : [Math.round(abs / 86_400), 'd'];
  if (n === 0) return s > 0 ? 'in a moment' : 'just now';
  return s > 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
}

function query(params: Record<string, string | number | undefined>): string {
  const parts = Object.entries(params).filter(([, v]) => v !== undefined && v !== '');
  const qs = new URLSearchParams(parts.map(([k, v]): [string, string] => [k, String(v)])).toString();
  return qs === '' ? '' : `?${qs}`;
}

function filterParams(filter: EmailFilter): Record<string, string | undefined> {
  return { q: filter.q, status: filter.status, kind: filter.kind === 'templated' ? 'template' : filter.kind, to: filter.to };
}

function pageNumber(value: string | undefined): number {
  const n = value !== undefined && /^\d{1,6}$/.test(value) ? Number(value) : 1;
  return Math.max(1, n);
}

const PREVIEW_LENGTH = 140;

/** One line of an email's text for the list, cut whole characters (code points), not UTF-16 halves. */
export function previewOf(email: InboxEmail): string {
  const chars = Array.from((email.previewText ?? withText(email)).replace(/\s+/g, ' ').trim());
  return chars.length > PREVIEW_LENGTH ? `${chars.slice(0, PREVIEW_LENGTH).join('')}…` : chars.join('');
}

function badge(status: string): string {
  return `<span class="st ${h(status)}">${h(status)}</span>`;
}

function option(value: string, label: string, selected: string | undefined): string {
  return `<option value="${h(value)}"${selected === value ? ' selected' : ''}>${h(label)}</option>`;
}

function pager(base: string, params: Record<string, string | undefined>, page: number, pages: number, from: number, to: number, of: number, noun: string): string {
  if (of === 0) return '';
  const link = (p: number, rel: string, label: string) =>
    p < 1 || p > pages ? `<span class="off">${label}</span>` : `<a rel="${rel}" href="${base}${h(query({ ...params, page: p === 1 ? undefined : p }))}">${label}</a>`;
  return `<nav class="pager" aria-label="Pages">${link(page - 1, 'prev', '← Newer')}<span class="count">${figure(from)}–${figure(to)} of ${figure(of)} ${noun}</span>${link(page + 1, 'next', 'Older →')}</nav>`;
}

/** The workspaces a sandbox has (the first is its own), for the inbox's workspace filter. */
export interface WorkspaceChoice {
  id: string;
  name: string;
}

/** The id of the workspace a page shows, unless it is the first (`workspaces[0]`, or none listed). */
export function scopeOf(state: SandboxState, workspaces: WorkspaceChoice[]): string | undefined {
  return workspaces.length > 0 && workspaces[0]!.id !== state.workspace.id ? state.workspace.id : undefined;
}

/** One address, or several as an email's header lists them. */
function replyToText(replyTo: string | string[] | undefined): string | undefined {
  return Array.isArray(replyTo) ? replyTo.join(', ') : replyTo;
}

export function inboxPage(state: SandboxState, filter: EmailFilter, pageParam: string | undefined, now = Date.now(), workspaces: WorkspaceChoice[] = []): string {
  const matching = filterEmails(state.emails, filter);
  const counts = countEmails(state);
  const pages = Math.max(1, Math.ceil(matching.length / PAGE_SIZE));
  const page = Math.min(pageNumber(pageParam), pages);
  const end = matching.length - (page - 1) * PAGE_SIZE;
  const shown = matching.slice(Math.max(0, end - PAGE_SIZE), end).reverse();
  const scope = scopeOf(state, workspaces);
  const params: Record<string, string | undefined> = { ...filterParams(filter), workspace: scope };

  const rows = shown
    .map((e) => {
      const subject = e.subject ?? e.template ?? '(no subject)';
      return `<li class="row" data-id="${h(e.id)}"><a href="/inbox/${encodeURIComponent(e.id)}">
<span class="to" title="To">${h(e.to)}</span><span class="from" title="From">${h(e.from ?? '')}</span>
<span class="subject"><b>${h(subject)}</b> <span class="preview">${h(previewOf(e))}</span></span>
<span class="tags">${e.type === 'templated' ? `<span class="kind" title="Template">${h(e.template ?? 'template')}</span>` : ''}${badge(e.status)}</span>${timeTag(e.createdAt, now)}</a></li>`;
    })
    .join('');

  const current = state.workspace.id;
  // The workspaces made for tests each have an inbox of their own; the first is shown by default.
  const pick =
    workspaces.length > 1
      ? `<select name="workspace" aria-label="Workspace">${workspaces.map((w, i) => option(i === 0 ? '' : w.id, `${w.name} (${w.id})`, workspaces[0]!.id === current ? '' : current)).join('')}</select>`
      : '';
  const form = `<form class="bar" method="get" action="/" role="search">${pick}
<input type="search" name="q" value="${h(filter.q ?? '')}" placeholder="Search to, from, subject, template, id" aria-label="Search" autocomplete="off">
<select name="status" aria-label="Status">${option('', 'Any status', params.status)}${option('SENT', 'Sent', params.status)}${option('SCHEDULED', 'Scheduled', params.status)}</select>
<select name="kind" aria-label="Kind">${option('', 'Any kind', params.kind)}${option('raw', 'Raw', params.kind)}${option('template', 'Template', params.kind)}</select>
<button type="submit">Search</button>${isFiltered(filter) ? `<a class="reset" href="/${h(query({ workspace: scope }))}">Clear filters</a>` : ''}</form>`;

  const summary = `<div class="summary"><span><b data-count="emails">${figure(counts.total)}</b> emails</span>
<a href="/${h(query({ status: 'SENT', workspace: scope }))}">${figure(counts.sent)} sent</a><a href="/${h(query({ status: 'SCHEDULED', workspace: scope }))}">${figure(counts.scheduled)} scheduled</a>
<a href="/${h(query({ kind: 'raw', workspace: scope }))}">${figure(counts.raw)} raw</a><a href="/${h(query({ kind: 'template', workspace: scope }))}">${figure(counts.templated)} template</a><span class="unread-count" id="unread"></span>
${counts.total > 0 ? `<button type="button" class="danger" data-action="clear"${scope === undefined ? '' : ` data-workspace="${h(scope)}"`}>Delete all</button>` : ''}</div>`;

  let list: string;
  if (counts.total === 0) list = '<p class="empty">No email caught yet. Point a client at this sandbox and send one; it appears here at once.</p>';
  else if (matching.length === 0) list = `<p class="empty">No email matches. <a href="/${h(query({ workspace: scope }))}">Show all ${figure(counts.total)}</a></p>`;
  else {
    const from = (page - 1) * PAGE_SIZE + 1;
    list = `<ol class="list" id="list">${rows}</ol>${pager('/', params, page, pages, from, from + shown.length - 1, matching.length, isFiltered(filter) ? 'matching' : 'emails')}`;
  }
  const title = isFiltered(filter) ? `Inbox: ${figure(matching.length)} matching` : `Inbox (${figure(counts.total)})`;
  return layout(title, 'inbox', `${form}${summary}<div id="live-region" data-live="emails">${list}</div>`, state, scope);
}

export type EmailTab = 'html' | 'text' | 'source' | 'details' | 'checks';
const TABS: [EmailTab, string][] = [
  ['html', 'HTML'],
  ['text', 'Text'],
  ['source', 'Source'],
  ['details', 'Details'],
  ['checks', 'Checks'],
];

export interface EmailView {
  tab: EmailTab;
  mobile: boolean;
  images: boolean;
}

export function parseView(query: Record<string, string | undefined>): EmailView {
  const tab = TABS.some(([t]) => t === query.tab) ? (query.tab as EmailTab) : 'html';
  return { tab, mobile: query.width === 'mobile', images: query.images === '1' };
}

function json(value: unknown): string {
  return `<pre class="code">${h(JSON.stringify(value, null, 2))}</pre>`;
}

function detailRows(email: InboxEmail): [string, string][] {
  const s = (v: string | undefined) => (v === undefined ? '<span class="none">—</span>' : h(v));
  const obj = (v: unknown) => (v === undefined ? '<span class="none">—</span>' : json(v));
  return [
    ['Id', s(email.id)],
    ['Message id', s(email.messageId)],
    ['Request id', s(email.requestId)],
    ['Status', badge(email.status)],
    ['Kind', email.type === 'templated' ? 'template' : 'raw'],
    ['To', s(email.to)],
    ['From', s(email.from)],
    ['From name', s(email.fromName)],
    ['Reply-To', s(replyToText(email.replyTo))],
    ['Subject', s(email.subject)],
    ['Preview text', s(email.previewText)],
    ['Template', s(email.template)],
    ['Variables', obj(email.variables)],
    ['Contact properties', obj(email.contactProperties)],
    ['Group by', s(email.groupBy)],
    ['Idempotency key', s(email.idempotencyKey)],
    ['Send at', s(email.sendAt)],
    ['Created', s(email.createdAt)],
    ['Tracking', `clicks ${email.settings.trackClicks ? 'on' : 'off'}, opens ${email.settings.trackOpens ? 'on' : 'off'}`],
  ];
}

/** The Checks tab: `mailroom lint`'s local checks on the email as caught (`sandbox email <id> --checks` prints the same). */
function checksPanel(report: LintReport): string {
  const findings = report.results.flatMap((r) => r.findings);
  const { error, warning, info } = report.counts;
  const summary = `<p class="note">${error} error${error === 1 ? '' : 's'}, ${warning} warning${warning === 1 ? '' : 's'}, ${info} info · the checks of <code>mailroom lint</code>, on the email as caught</p>`;
  if (findings.length === 0) return `${summary}<p class="none" data-checks="clean">No findings.</p>`;
  const order = { error: 0, warning: 1, info: 2 } as const;
  const rows = [...findings]
    .sort((a, b) => order[a.severity] - order[b.severity])
    .map((f) => `<tr data-check="${h(f.check)}"><td><span class="sev ${f.severity}">${f.severity}</span></td><td><code>${h(f.check)}</code></td><td>${f.line === undefined ? '' : `line ${f.line}${f.column === undefined ? '' : `:${f.column}`}`}</td><td>${h(f.message)}</td><td class="note">${h(f.hint)}</td></tr>`)
    .join('');
  return `${summary}<table class="checks"><thead><tr><th>Severity</th><th>Check</th><th>Where</th><th>Finding</th><th>Fix</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** `scope`: the workspace holding the email, when it is not the first. */
export function emailPage(state: SandboxState, email: InboxEmail, view: EmailView, now = Date.now(), scope?: string): string {
  const text = withText(email);
  const base = `/inbox/${encodeURIComponent(email.id)}`;
  const link = (over: Partial<EmailView>) => {
    const v = { ...view, ...over };
    return `${base}${h(query({ tab: v.tab === 'html' ? undefined : v.tab, width: v.mobile ? 'mobile' : undefined, images: v.images ? '1' : undefined }))}`;
  };
  const index = state.emails.indexOf(email);
  const newer = state.emails[index + 1];
  const older = state.emails[index - 1];
  const step = (e: InboxEmail | undefined, rel: string, label: string, key: string) =>
    e ? `<a rel="${rel}" href="/inbox/${encodeURIComponent(e.id)}" title="${label} (${key})">${label}</a>` : `<span class="off">${label}</span>`;

  const tabs = TABS.map(([t, label]) => `<a role="tab" href="${link({ tab: t })}"${t === view.tab ? ' aria-selected="true" aria-current="page"' : ''}>${label}</a>`).join('');

  let panel: string;
  if (view.tab === 'html') {
    const remote = countRemoteResources(email.html);
    const images =
      remote === 0
        ? '<span class="note">No remote images</span>'
        : view.images
          ? `<span class="note">Remote images loaded</span> <a class="button" href="${link({ images: false })}">Block remote images</a>`
          : `<span class="note warn">${remote} remote image${remote === 1 ? '' : 's'} blocked</span> <a class="button" id="load-images" href="${link({ images: true })}">Load remote images</a>`;
    const widths = `<span class="widths"><a href="${link({ mobile: false })}"${view.mobile ? '' : ' aria-current="true"'}>Desktop</a><a href="${link({ mobile: true })}"${view.mobile ? ' aria-current="true"' : ''}>Mobile</a></span>`;
    const src = `${base}/body${view.images ? '?images=1' : ''}`;
    panel = `<div class="toolbar">${widths}<span class="images">${images}</span></div>
<div class="frame${view.mobile ? ' mobile' : ''}"><iframe title="Email HTML" src="${h(src)}" sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer"></iframe></div>`;
  } else if (view.tab === 'text') {
    panel = `<pre class="text">${h(text)}</pre>`;
  } else if (view.tab === 'source') {
    panel = json(email);
  } else if (view.tab === 'checks') {
    panel = checksPanel(emailChecks(email));
  } else {
    panel = `<dl class="details">${detailRows(email)
      .map(([k, v]) => `<dt>${h(k)}</dt><dd>${v}</dd>`)
      .join('')}</dl>`;
  }

  const meta: [string, string | undefined][] = [
    ['From', email.from],
    ['To', email.to],
    ['Reply-To', replyToText(email.replyTo)],
  ];
  const head = `<nav class="crumbs"><a href="/${h(query({ workspace: scope }))}" data-key="u">← Inbox</a>${step(newer, 'prev', 'Newer', 'k')}${step(older, 'next', 'Older', 'j')}</nav>
<h1>${h(email.subject ?? email.template ?? '(no subject)')}</h1>
<div class="meta"><dl>${meta
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<dt>${k}</dt><dd>${h(v!)}</dd>`)
    .join('')}<dt>Created</dt><dd>${timeTag(email.createdAt, now)}</dd>${email.sendAt ? `<dt>Send at</dt><dd>${timeTag(email.sendAt, now)}</dd>` : ''}</dl>
<div class="actions" id="live-region" data-live="email">${badge(email.status)}<button type="button" class="danger" data-action="delete" data-id="${h(email.id)}">Delete</button></div></div>`;
  return layout(email.subject ?? email.id, 'inbox', `<article data-email="${h(email.id)}">${head}<nav class="tabs" role="tablist">${tabs}</nav><section class="panel">${panel}</section></article>`, state, scope);
}

/** `scope`: the workspace shown, when it is not the first. */
export function deliveriesPage(state: SandboxState, pageParam: string | undefined, now = Date.now(), scope?: string): string {
  const all = state.deliveries;
  // Every figure counts the attempts kept (the newest --retain); totals since the reset are said beside them.
  const failed = all.filter((d) => d.error !== undefined && d.notDelivered === undefined).length;
  const dropped = all.filter(isDropped).length;
  const offMachine = all.filter((d) => d.notDelivered !== undefined).length - dropped;
  const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
  const page = Math.min(pageNumber(pageParam), pages);
  const end = all.length - (page - 1) * PAGE_SIZE;
  const shown = all.slice(Math.max(0, end - PAGE_SIZE), end).reverse();
  const hooks = state.webhooks.size;

  const item = (d: DeliveryRecord) => {
    const ok = d.error === undefined;
    const code = d.statusCode === undefined ? h(d.error ?? 'no answer') : String(d.statusCode);
    const retry = d.nextRetryAt ? `next retry ${timeTag(d.nextRetryAt, now)}` : ok ? '' : d.notDelivered !== undefined ? 'not sent' : 'no more retries';
    const canResend = d.id !== undefined && d.body !== undefined && state.webhooks.has(d.webhookId);
    const headers = `content-type: application/json\n${SIGNATURE_HEADER}: ${d.signature ?? '(not recorded)'}\nuser-agent: mailroom-sandbox`;
    let body = d.body ?? '(not recorded)';
    try {
      body = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // shown as sent
    }
    return `<li class="delivery ${ok ? 'ok' : 'failed'}"${d.id ? ` data-id="${h(d.id)}"` : ''}><details><summary>
<span class="code ${ok ? 'ok' : 'failed'}" title="${h(d.notDelivered ?? d.error ?? 'delivered')}">${code}</span><span class="event">${h(d.event)}</span>
<span class="url" title="Target URL">${h(d.url)}</span><span class="attempt">attempt ${d.attempt}${d.resendOf ? ' (resent)' : ''}</span>
<span class="retry">${retry}</span>${timeTag(d.createdAt, now)}</summary>
<div class="delivery-body"><p>${
      d.notDelivered !== undefined
        ? `Not delivered to <code>${h(d.url)}</code> (webhook <code>${h(d.webhookId)}</code>): ${h(d.notDelivered)}. Nothing was sent`
        : `${ok ? 'Delivered' : `Failed: ${h(d.error!)}`} in ${d.durationMs} ms to <code>${h(d.url)}</code> (webhook <code>${h(d.webhookId)}</code>)`
    }${d.resendOf ? `, resent from <code>${h(d.resendOf)}</code>` : ''}.</p>
<h3>Headers</h3><pre class="code">${h(headers)}</pre><h3>Signed body <small>(sent as one line: the bytes below, pretty-printed)</small></h3><pre class="code">${h(body)}</pre>
${d.body !== undefined ? `<details class="raw"><summary>Exact bytes</summary><pre class="code">${h(d.body)}</pre></details>` : ''}
${canResend ? `<button type="button" data-action="resend" data-id="${h(d.id!)}">Resend</button>` : '<p class="note">Cannot be resent: its webhook is gone or it was recorded without its body.</p>'}</div></details></li>`;
  };

  const attempts = state.deliveryTotal > all.length ? `<b>${figure(all.length)}</b> attempts kept (the newest of ${figure(state.deliveryTotal)})` : `<b>${figure(all.length)}</b> attempts`;
  const droppedSince = state.deliveriesDropped > dropped ? ` (${figure(state.deliveriesDropped)} since the last reset)` : '';
  const summary =
    `<div class="summary"><span>${attempts}</span><span>${figure(all.length - failed - offMachine - dropped)} delivered</span><span>${figure(failed)} failed</span>` +
    `${offMachine > 0 ? `<span>${figure(offMachine)} not delivered (off this machine)</span>` : ''}` +
    `${state.deliveriesDropped > 0 ? `<span>${figure(dropped)} dropped: the delivery queue was full${droppedSince}</span>` : ''}<span>${hooks} webhook${hooks === 1 ? '' : 's'}</span></div>`;
  const list =
    all.length === 0
      ? `<p class="empty">No delivery yet. ${hooks === 0 ? 'Create a webhook (mailroom webhooks create, or webhooks listen --register) and' : 'Send an email or'} fire an event (mailroom sandbox trigger CONTACT_CREATED).</p>`
      : `<ol class="deliveries" id="list">${shown.map(item).join('')}</ol>${pager('/deliveries', { workspace: scope }, page, pages, (page - 1) * PAGE_SIZE + 1, (page - 1) * PAGE_SIZE + shown.length, all.length, 'attempts')}`;
  return layout('Deliveries', 'deliveries', `<h1>Webhook deliveries</h1>${summary}<div id="live-region" data-live="deliveries">${list}</div>`, state, scope);
}

/** A friendly page for a missing email or path, or a bad search. */
export function messagePage(title: string, message: string, state?: SandboxState): string {
  return layout(title, 'none', `<div class="notfound"><h1>${h(title)}</h1><p>${h(message)}</p><p><a href="/">Back to the inbox</a></p></div>`, state);
}

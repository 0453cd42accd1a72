import type { InboxEmail, SandboxState } from './state.js';
import { escapeHtml } from './templates.js';

/**
 * Scripts never run: the page allows none, and each email's HTML is shown only inside an iframe
 * with an empty `sandbox` attribute (no scripts, no same-origin), which also inherits this policy.
 */
export const INBOX_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data: http: https:; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SHOWN = 200;

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d1d1f}header{background:#222;color:#fff;padding:10px 16px}
header a{color:#fff;text-decoration:none}main{padding:12px 16px}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:6px 8px;border-bottom:1px solid #e5e5e5;vertical-align:top}th{font-weight:600;color:#555}
.st{font-size:11px;padding:1px 6px;border-radius:8px;background:#e8f5e9}.st.SCHEDULED{background:#fff3e0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px}dt{color:#555}dd{margin:0}
iframe{width:100%;height:60vh;border:1px solid #ddd}pre{white-space:pre-wrap;background:#f7f7f7;padding:8px}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header><a href="/">mailroom sandbox inbox</a></header><main>${body}</main></body></html>`;
}

export function inboxPage(state: SandboxState): string {
  const total = state.emails.length;
  const recent = state.emails.slice(-SHOWN).reverse();
  const rows = recent
    .map(
      (e) => `<tr><td><a href="/inbox/${encodeURIComponent(e.id)}">${escapeHtml(e.subject ?? e.template ?? '(no subject)')}</a></td>
<td>${escapeHtml(e.to)}</td><td>${escapeHtml(e.from ?? '')}</td><td><span class="st ${escapeHtml(e.status)}">${escapeHtml(e.status)}</span></td>
<td>${escapeHtml(e.createdAt)}</td></tr>`,
    )
    .join('');
  const note = total > SHOWN ? `<p>Showing the newest ${SHOWN} of ${total} emails; all are in <a href="/_sandbox/emails">/_sandbox/emails</a>.</p>` : '';
  const body =
    total === 0
      ? '<p>No email caught yet. Point a client at this sandbox and send one.</p>'
      : `${note}<table><thead><tr><th>Subject</th><th>To</th><th>From</th><th>Status</th><th>Created</th></tr></thead><tbody>${rows}</tbody></table>`;
  return page(`Inbox (${total})`, `<h1>Inbox (${total})</h1>${body}`);
}

export function emailPage(email: InboxEmail): string {
  const fields: [string, string | undefined][] = [
    ['Subject', email.subject],
    ['From', email.from],
    ['To', email.to],
    ['Reply-To', email.replyTo],
    ['Template', email.template],
    ['Status', email.status],
    ['Send at', email.sendAt],
    ['Created', email.createdAt],
    ['Id', email.id],
    ['Message id', email.messageId],
    ['Tracking', `clicks ${email.settings.trackClicks ? 'on' : 'off'}, opens ${email.settings.trackOpens ? 'on' : 'off'}`],
  ];
  const dl = fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v!)}</dd>`)
    .join('');
  return page(
    email.subject ?? email.id,
    `<dl>${dl}</dl><h2>HTML</h2><iframe sandbox="" referrerpolicy="no-referrer" srcdoc="${escapeHtml(email.html)}"></iframe><h2>Text</h2><pre>${escapeHtml(email.text)}</pre>`,
  );
}

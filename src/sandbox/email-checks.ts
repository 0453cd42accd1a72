import { checkEmail } from '../lint/checks.js';
import { buildReport, type LintReport } from '../lint/formats.js';
import type { Severity } from '../lint/rules.js';
import type { InboxEmail } from './state.js';
import { withText } from './text.js';

/**
 * `mailroom lint`'s local checks on a caught email, as it was accepted: its HTML (a template's
 * rendered), its text part (the one sent, or the one generated from the HTML, as the service does),
 * subject, preview text and the fields a placeholder may be left in. The inbox's Checks tab and
 * `GET /_sandbox/emails/:id/checks` (`sandbox email --checks`) answer the same report.
 */
export function emailChecks(email: InboxEmail, failOn: Severity = 'error'): LintReport {
  const fields: Record<string, string> = {};
  for (const [k, v] of [['from', email.from], ['to', email.to], ['replyTo', email.replyTo], ['sendAt', email.sendAt]] as const) if (typeof v === 'string') fields[k] = v;
  const { findings } = checkEmail({
    html: email.html,
    text: withText(email),
    ...(email.subject === undefined ? {} : { subject: email.subject }),
    ...(email.previewText === undefined ? {} : { previewText: email.previewText }),
    fields,
  });
  return buildReport([{ input: email.id, findings, skipped: [] }], failOn);
}

/** How bad a finding is; `--fail-on` picks the lowest that fails the run. */
export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const severityRank = (s: Severity): number => SEVERITIES.length - SEVERITIES.indexOf(s);

export interface Rule {
  id: string;
  severity: Severity;
  /** One line: what the rule looks for. */
  title: string;
  /** How to fix what it found. */
  hint: string;
}

const rule = (id: string, severity: Severity, title: string, hint: string): Rule => ({ id, severity, title, hint });

/** Every check `mailroom lint` runs, by id (docs/checking-emails.md lists them with examples). */
export const RULES = {
  'size-clipped': rule('size-clipped', 'error', 'HTML over 102 KB, where Gmail clips the message', 'Gmail shows "[Message clipped]" past 102 KB and hides the rest (and the open pixel): drop comments and unused CSS, or shorten the email'),
  'size-near-clip': rule('size-near-clip', 'warning', 'HTML over 90 KB, close to where Gmail clips', 'leave room under 102 KB: tracking links and template values make the sent HTML longer than this file'),
  'size-data-uri': rule('size-data-uri', 'warning', 'inline data: URI (image or font)', 'Gmail and Outlook do not show data: images and they count toward the 102 KB clip: host the image over https and link it'),
  'size-image': rule('size-image', 'warning', 'remote image over 1 MB (--check-links)', 'compress or resize it: mobile readers download every image, and some clients stop loading heavy ones'),
  'link-unsafe-scheme': rule('link-unsafe-scheme', 'error', 'javascript:, vbscript: or data: link', 'email clients strip or block these links: link to an https:// page instead'),
  'link-http': rule('link-http', 'warning', 'link over plain http://', 'use https://: clients and browsers warn on plain HTTP, and link scanners mark it'),
  'link-empty': rule('link-empty', 'warning', 'link with an empty or "#" href', 'there is no page for "#" to scroll in an inbox: give the link its real URL, or make it text'),
  'link-relative': rule('link-relative', 'error', 'relative URL, which cannot resolve in an email', 'an email has no base address: write the whole URL, https://example.com/path'),
  'link-broken': rule('link-broken', 'error', 'link that answered an error status or could not be fetched (--check-links)', 'fix or remove the link; a link that needs a login or blocks robots may answer 401/403 to a check and still work'),
  'image-no-alt': rule('image-no-alt', 'warning', 'image without alt text', 'add alt="..." (alt="" for a decorative image): many clients block images by default and show the alt text instead'),
  'image-no-size': rule('image-no-size', 'warning', 'image without width and height', 'give width and height attributes: Outlook shows images at their natural size, and blocked images collapse the layout'),
  'image-http': rule('image-http', 'warning', 'remote image over plain http://', 'serve images over https://: Gmail\'s image proxy and many clients refuse or flag plain HTTP'),
  'image-relative': rule('image-relative', 'error', 'image with a relative or missing src', 'an email has no base address: use the image\'s whole https:// URL'),
  'text-missing': rule('text-missing', 'info', 'no plain-text part', 'the service generates one from the HTML; write your own (send --text-file) to control what text-only readers see'),
  'text-mismatch': rule('text-mismatch', 'warning', 'plain-text part that differs widely from the HTML', 'the text part should say what the HTML says: spam filters compare them, and text-only readers see only it'),
  'head-no-title': rule('head-no-title', 'warning', 'no <title>', 'add <title> with the subject: some clients and web views show it, and screen readers announce it'),
  'head-no-preheader': rule('head-no-preheader', 'info', 'no preheader (inbox preview text)', 'without one the inbox shows the first text of the body; add a hidden preheader or send previewText'),
  'placeholder-unresolved': rule('placeholder-unresolved', 'error', 'template placeholder left in the email ({{name}}, {% ... %}, *|NAME|*)', 'fill the value before sending, or send it as a template with that variable'),
  'template-variable-missing': rule('template-variable-missing', 'error', "a template variable the entry does not give (--templates)", 'add it to the entry\'s variables: the template renders it as nothing'),
  'client-unsupported': rule('client-unsupported', 'warning', 'HTML or CSS feature an email client named in --clients does not support (caniemail data)', 'use a fallback those clients render, or accept how they show it'),
  'client-partial': rule('client-partial', 'info', 'HTML or CSS feature an email client named in --clients supports only in part (caniemail data)', 'read the notes: the feature may work only in some cases or accounts'),
  'spam-score': rule('spam-score', 'error', 'SpamAssassin score at or over the threshold (--spam)', 'look at the rules it lists: the ones with the most points are the ones to fix first'),
  'spam-rules': rule('spam-rules', 'info', 'SpamAssassin rules that added points, under the threshold (--spam)', 'each rule adds to the score; fewer means more room before the threshold'),
  'entry-invalid': rule('entry-invalid', 'error', 'batch or --file entry that is not an email', 'fix the entry: `mailroom batch --dry-run` says what the API needs'),
} as const satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;

export interface Finding {
  check: RuleId | string;
  severity: Severity;
  message: string;
  hint: string;
  /** Where in the checked HTML (or, for a batch entry without one, the input line). */
  line?: number;
  column?: number;
}

export function finding(id: RuleId, message: string, where: { line?: number; column?: number } = {}): Finding {
  const r: Rule = RULES[id];
  return { check: r.id, severity: r.severity, message, hint: r.hint, ...(where.line === undefined ? {} : { line: where.line }), ...(where.column === undefined ? {} : { column: where.column }) };
}

import { describe, expect, test } from 'vitest';
import { emailPage, INBOX_CSP, inboxPage } from '../../src/sandbox/inbox.js';
import { SandboxState, type InboxEmail } from '../../src/sandbox/state.js';

const evil: InboxEmail = {
  id: 'trs_1"><script>x</script>',
  messageId: 'm',
  status: 'SENT',
  type: 'raw',
  to: '"><img src=x onerror=alert(1)>@x.test',
  from: 'a@example.com',
  subject: '<script>alert(1)</script>',
  html: '<p onclick="steal()">hi</p><script>alert(2)</script>"\'',
  text: '<b>text</b>',
  settings: { trackClicks: true, trackOpens: false },
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('HTML inbox', () => {
  test('the list escapes every field and links by encoded id', () => {
    const state = SandboxState.fresh(undefined);
    state.addEmail(evil);
    const html = inboxPage(state);
    expect(html).not.toMatch(/<script>|<img/);
    expect(html).toContain('/inbox/trs_1%22%3E%3Cscript%3Ex%3C%2Fscript%3E');
    expect(html).toContain('Inbox (1)');
  });

  test('an email’s HTML appears only escaped inside a sandboxed srcdoc iframe', () => {
    const page = emailPage(evil);
    expect(page).not.toMatch(/<script>|<p onclick/);
    expect(page).toContain('<iframe sandbox="" referrerpolicy="no-referrer" srcdoc="&lt;p onclick=&quot;steal()&quot;&gt;hi&lt;/p&gt;&lt;script&gt;alert(2)&lt;/script&gt;&quot;&#39;"');
    expect(page).toContain('<pre>&lt;b&gt;text&lt;/b&gt;</pre>');
  });

  test('the policy forbids scripts everywhere', () => {
    expect(INBOX_CSP).toContain("default-src 'none'");
    expect(INBOX_CSP).not.toContain('script-src');
  });

  test('an empty inbox says so', () => {
    expect(inboxPage(SandboxState.fresh(undefined))).toContain('No email caught yet');
  });
});

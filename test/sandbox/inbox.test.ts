import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countRemoteResources, emailFrameCsp, prepareEmailHtml } from '../../src/sandbox/email-html.js';
import { deliveriesPage, INBOX_CSP, inboxPage, relative } from '../../src/sandbox/inbox.js';
import { SandboxState, type InboxEmail } from '../../src/sandbox/state.js';
import { sign } from '../../src/webhook/signature.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

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

describe('inbox pages (rendering)', () => {
  test('the list escapes every field and links by encoded id', () => {
    const state = SandboxState.fresh(undefined);
    state.addEmail(evil);
    const html = inboxPage(state, {}, undefined);
    expect(html).not.toMatch(/<script>|<img/);
    expect(html).toContain('/inbox/trs_1%22%3E%3Cscript%3Ex%3C%2Fscript%3E');
    expect(html).toContain('<title>Inbox (1) · mailroom sandbox</title>');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  test('counts on the pages carry thousands separators, as every count mailroom prints (the live-update state stays plain)', () => {
    const state = SandboxState.fresh(undefined);
    for (let i = 0; i < 1_234; i++) state.addEmail({ ...evil, id: `trs_${i}`, to: 'ada@x.test' });
    for (let i = 0; i < 1_100; i++) state.addDelivery({ id: `dlv_${i}`, webhookId: 'wh_1', event: 'CONTACT_CREATED', url: 'http://127.0.0.1:9/h', attempt: 1, statusCode: 200, durationMs: 1, createdAt: evil.createdAt });
    const html = inboxPage(state, {}, undefined);
    expect(html).toContain('<title>Inbox (1,234) · mailroom sandbox</title>');
    expect(html).toContain('<span class="n" data-count="emails">1,234</span>');
    expect(html).toContain('<span class="n" data-count="deliveries">1,100</span>');
    expect(html).toContain('<b data-count="emails">1,234</b> emails');
    expect(html).toContain('>1,234 sent</a>');
    expect(html).toMatch(/<span class="count">1–\d+ of 1,234 emails<\/span>/);
    expect(html).toContain('data-state="1234,0,1100"');
    const deliveries = deliveriesPage(state, undefined);
    expect(deliveries).toContain('<span><b>1,100</b> attempts</span><span>1,100 delivered</span>');
    expect(deliveries).toMatch(/<span class="count">1–\d+ of 1,100 attempts<\/span>/);
  });

  test('the page policy allows the sandbox’s own script only: no inline script, nothing from elsewhere', () => {
    expect(INBOX_CSP).toContain("default-src 'none'");
    expect(INBOX_CSP).toContain("script-src 'self';");
    expect(INBOX_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  });

  test('the frame policy never allows scripts; remote content only when asked', () => {
    for (const remote of [false, true]) {
      const csp = emailFrameCsp(remote);
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain('script-src');
      expect(csp).toMatch(/sandbox allow-popups allow-popups-to-escape-sandbox$/);
      expect(csp).not.toContain('allow-scripts');
    }
    expect(emailFrameCsp(false)).not.toMatch(/http/);
    expect(emailFrameCsp(true)).toContain('img-src data: cid: http: https:');
  });

  test('links open in a new tab; script-like links and meta refresh are taken out', () => {
    const out = prepareEmailHtml(
      '<meta http-equiv="refresh" content="0;url=https://track.example/"><a href="https://example.com/a?x=1&amp;y=2" target="_self" class="btn">Go</a>' +
        "<a HREF='mailto:x@example.com'>mail</a><a href=\"javascript:alert(1)\">js</a><a href=\"&#106;avascript:alert(1)\">enc</a><a href=\"#top\">top</a><a name=x>anchor</a>",
    );
    expect(out).toBe(
      '<a href="https://example.com/a?x=1&amp;y=2" target="_blank" rel="noopener noreferrer" class="btn">Go</a>' +
        '<a href="mailto:x@example.com" target="_blank" rel="noopener noreferrer">mail</a><a data-blocked-href>js</a><a data-blocked-href>enc</a><a href="#top">top</a><a name=x>anchor</a>',
    );
  });

  test('remote resources are counted (what blocking withholds)', () => {
    expect(countRemoteResources('<img src="https://t.example/p.gif"><img src="data:image/png;base64,AA"><td background=http://x/b.png><div style="background:url(\'//cdn.example/x.png\')">')).toBe(3);
    expect(countRemoteResources('<p>no images</p>')).toBe(0);
  });

  test('relative times', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(relative('2026-01-01T11:59:50Z', now)).toBe('just now');
    expect(relative('2026-01-01T11:57:00Z', now)).toBe('3 min ago');
    expect(relative('2026-01-01T09:00:00Z', now)).toBe('3 h ago');
    expect(relative('2026-01-01T14:00:00Z', now)).toBe('in 2 h');
    expect(relative('2025-12-29T12:00:00Z', now)).toBe('3 d ago');
  });
});

describe('inbox over HTTP', () => {
  let sb: TestSandbox;
  let call: ReturnType<typeof client>;
  const page = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${sb.baseUrl}${path}`, { headers: { accept: 'text/html', ...headers } });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const raw = (over: Record<string, unknown> = {}) => ({ from: 'ops@example.com', to: 'ada@customer.test', subject: 'Hello Ada', html: '<p>Hi <a href="https://example.com/x">there</a></p>', ...over });
  const send = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/v1/emails', body);
    expect(res.status).toBe(200);
    return res.body.email.id as string;
  };
  const postJson = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${sb.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

  beforeAll(async () => {
    sb = await withSandbox({ config: { verifiedDomains: ['example.com'], templates: { welcome: { subject: 'Welcome {{name}}', html: '<h1>Hi {{name}}</h1>' } } } });
    call = client(sb);
  });
  afterAll(() => sb.close());
  afterEach(() => sb.reset());

  test('search (?q) over to, from, subject, template and id; status and kind filters; counts', async () => {
    const a = await send(raw({ to: 'bob@customer.test', subject: 'Invoice 7' }));
    await send(raw({ to: 'carol@customer.test', subject: 'Receipt' }));
    await send({ template: 'welcome', to: 'dan@customer.test', variables: { name: 'Dan' } });
    await send(raw({ to: 'eve@customer.test', sendAt: new Date(Date.now() + 3_600_000).toISOString() }));
    const rows = (html: string) => [...html.matchAll(/<li class="row" data-id="([^"]+)"/g)].map((m) => m[1]);

    // Case-insensitive, and with an '@', which no id holds: a bare 'BOB' also matched the one id in
    // about 600 runs whose random letters held "bob".
    expect(rows((await page('/?q=BOB%40')).text)).toEqual([a]);
    expect(rows((await page(`/inbox?q=${a.slice(4, 12)}`)).text)).toEqual([a]);
    expect(rows((await page('/?q=welcome')).text)).toHaveLength(1);
    expect(rows((await page('/?q=invoice')).text)).toEqual([a]);
    expect(rows((await page('/?status=SCHEDULED')).text)).toHaveLength(1);
    expect(rows((await page('/?kind=template')).text)).toHaveLength(1);
    expect(rows((await page('/?kind=raw&status=SENT')).text)).toHaveLength(2);
    const all = await page('/');
    expect(all.text).toContain('<b data-count="emails">4</b> emails');
    expect(all.text).toContain('3 sent</a><a href="/?status=SCHEDULED">1 scheduled</a>');
    expect((await page('/?q=nobody')).text).toContain('No email matches');
    const bad = await page('/?status=LOST');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('status must be SENT or SCHEDULED');

    // The same filters on the JSON list, for the CLI.
    const json = await call('GET', '/_sandbox/emails?to=BOB@');
    expect(json.body.items.map((e: InboxEmail) => e.id)).toEqual([a]);
    expect(json.body.total).toBe(1);
    expect((await call('GET', '/_sandbox/emails?kind=nope')).status).toBe(400);
  });

  test('paging: 50 a page, newest first, with links both ways', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push(await send(raw({ subject: `n${i}` })));
    const first = await page('/');
    const firstRows = [...first.text.matchAll(/data-id="(trs_[^"]+)"/g)].map((m) => m[1]);
    expect(firstRows).toEqual(ids.slice(5).reverse());
    expect(first.text).toContain('1–50 of 55 emails');
    expect(first.text).toContain('<a rel="next" href="/?page=2">Older →</a>');
    const second = await page('/?page=2');
    expect([...second.text.matchAll(/data-id="(trs_[^"]+)"/g)].map((m) => m[1])).toEqual(ids.slice(0, 5).reverse());
    expect(second.text).toContain('51–55 of 55 emails');
    expect(second.text).toContain('<a rel="prev" href="/">← Newer</a>');
  });

  test('email view: tabs HTML (framed), Text, Source and Details with every stored field', async () => {
    const id = await send(
      raw({
        fromName: 'Ops Team',
        previewText: 'A preview',
        replyTo: 'help@example.com',
        contactProperties: { plan: 'pro' },
        groupBy: 'g-1',
        idempotencyKey: 'idem-1',
        text: 'plain body',
        settings: { trackClicks: false, trackOpens: true },
        html: '<p>Hi</p><img src="https://track.example/p.gif">',
      }),
    );
    const html = await page(`/inbox/${id}`);
    expect(html.headers.get('content-security-policy')).toBe(INBOX_CSP);
    expect(html.text).toContain(`<iframe title="Email HTML" src="/inbox/${id}/body" sandbox="allow-popups allow-popups-to-escape-sandbox"`);
    expect(html.text).toContain('1 remote image blocked');
    expect(html.text).toContain(`href="/inbox/${id}?images=1">Load remote images</a>`);
    expect((await page(`/inbox/${id}?images=1`)).text).toContain(`src="/inbox/${id}/body?images=1"`);
    expect((await page(`/inbox/${id}?width=mobile`)).text).toContain('<div class="frame mobile">');

    const frame = await page(`/inbox/${id}/body`);
    expect(frame.headers.get('content-security-policy')).toBe(emailFrameCsp(false));
    expect(frame.text).toBe('<p>Hi</p><img src="https://track.example/p.gif">');
    expect((await page(`/inbox/${id}/body?images=1`)).headers.get('content-security-policy')).toBe(emailFrameCsp(true));

    expect((await page(`/inbox/${id}?tab=text`)).text).toContain('<pre class="text">plain body</pre>');
    const stored = (await call('GET', `/_sandbox/emails/${id}`)).body.email;
    expect(stored.requestId).toMatch(/^req_/);
    const source = (await page(`/inbox/${id}?tab=source`)).text;
    expect(source).toContain(JSON.stringify(stored, null, 2).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));
    const details = (await page(`/inbox/${id}?tab=details`)).text;
    for (const [label, value] of [
      ['Preview text', 'A preview'],
      ['Group by', 'g-1'],
      ['Idempotency key', 'idem-1'],
      ['Request id', stored.requestId],
      ['From name', 'Ops Team'],
      ['Reply-To', 'help@example.com'],
      ['Tracking', 'clicks off, opens on'],
    ]) {
      expect(details, label).toContain(`<dt>${label}</dt><dd>${value}</dd>`);
    }
    expect(details).toContain('<dt>Contact properties</dt><dd><pre class="code">{\n  &quot;plan&quot;: &quot;pro&quot;\n}</pre></dd>');
    const scheduled = await send({ template: 'welcome', to: 'dan@customer.test', variables: { name: 'Dan' }, sendAt: new Date(Date.now() + 3_600_000).toISOString() });
    const sd = (await page(`/inbox/${scheduled}?tab=details`)).text;
    expect(sd).toContain('<dt>Variables</dt><dd><pre class="code">{\n  &quot;name&quot;: &quot;Dan&quot;\n}</pre></dd>');
    expect(sd).toMatch(/<dt>Send at<\/dt><dd>20\d\d-/);
  });

  test('friendly 404 pages for a browser; JSON for the API and inspection endpoints', async () => {
    const gone = await page('/inbox/trs_nope');
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toMatch(/^text\/html/);
    expect(gone.text).toContain('No email trs_nope in this sandbox');
    expect(gone.text).toContain('<a href="/">Back to the inbox</a>');
    const nowhere = await page('/no/such/page');
    expect(nowhere.status).toBe(404);
    expect(nowhere.text).toContain('Nothing at /no/such/page in this sandbox.');
    const api = await page('/_sandbox/nothing');
    expect(api.status).toBe(404);
    expect(JSON.parse(api.text)).toEqual({ statusCode: 404, error: 'Not Found', message: 'No route GET /_sandbox/nothing' });
  });

  test('delete one and clear all: POST with JSON from the same origin; anything else is refused and changes nothing', async () => {
    const a = await send(raw());
    const b = await send(raw());
    const c = await send(raw());
    const formPost = await fetch(`${sb.baseUrl}/_sandbox/emails/${a}/delete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'x=1' });
    expect(formPost.status).toBe(415);
    const bare = await fetch(`${sb.baseUrl}/_sandbox/emails/clear`, { method: 'POST' });
    expect(bare.status).toBe(415);
    const foreign = await postJson(`/_sandbox/emails/${a}/delete`, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { message: string }).message).toContain('https://evil.example');
    expect((await postJson('/_sandbox/emails/clear', { origin: 'null' })).status).toBe(403);
    expect((await sb.emails()).map((e) => e.id)).toEqual([a, b, c]);

    const host = new URL(sb.baseUrl).host;
    const ok = await postJson(`/_sandbox/emails/${a}/delete`, { origin: `http://${host}`, 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ deleted: a });
    expect((await postJson(`/_sandbox/emails/${a}/delete`)).status).toBe(404);
    expect((await sb.emails()).map((e) => e.id)).toEqual([b, c]);
    const cleared = await postJson('/_sandbox/emails/clear');
    expect(await cleared.json()).toEqual({ deleted: 2 });
    expect(await sb.emails()).toEqual([]);
  });

  test('live stream: the current counts at once, then a change when an email arrives', async () => {
    const controller = new AbortController();
    const res = await fetch(`${sb.baseUrl}/_sandbox/stream`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const nextMessage = async () => {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const msg = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(msg);
          if (data) return JSON.parse(data[1]!);
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    };
    expect(await nextMessage()).toMatchObject({ emails: 0, scheduled: 0 });
    await send(raw());
    expect(await nextMessage()).toMatchObject({ emails: 1, scheduled: 0 });
    controller.abort();
  });
});

describe('deliveries page and resend', () => {
  let sb: TestSandbox;
  let receiver: Server;
  const received: { body: string; signature: string | undefined }[] = [];
  let status = 500;

  beforeAll(async () => {
    receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-smashsend-signature'] as string | undefined });
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    sb = await withSandbox({ config: { deliveries: { retryDelaysMs: [60_000] } } });
  });
  afterAll(async () => {
    await sb.close();
    await new Promise((r) => receiver.close(r));
  });

  test('every attempt with its exact signed body and signature; resend sends the same bytes again', async () => {
    const call = client(sb);
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const hook = (await call('POST', '/v1/webhooks', { url, events: ['CONTACT_CREATED'] })).body.webhook;
    await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED', email: 'ada@customer.test' });
    await expect.poll(() => sb.deliveries().then((d) => d.length)).toBe(1);
    const [first] = await sb.deliveries();
    expect(first).toMatchObject({ id: expect.stringMatching(/^dlv_/), attempt: 1, statusCode: 500, body: received[0]!.body, signature: received[0]!.signature });
    expect(first!.signature).toBe(sign(hook.token, first!.body!));
    expect(Date.parse(first!.nextRetryAt!) - Date.parse(first!.createdAt)).toBeGreaterThanOrEqual(59_000);

    const res = await fetch(`${sb.baseUrl}/deliveries`, { headers: { accept: 'text/html' } });
    const html = await res.text();
    expect(html).toContain(`<span class="url" title="Target URL">${url}</span>`);
    expect(html).toContain('attempt 1');
    expect(html).toContain(`x-smashsend-signature: ${first!.signature}`);
    expect(html).toContain('next retry <time');
    expect(html).toContain(`data-action="resend" data-id="${first!.id}"`);
    const bytes = first!.body!.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    expect(html).toContain(`<pre class="code">${bytes}</pre>`);

    status = 200;
    const resend = await fetch(`${sb.baseUrl}/_sandbox/deliveries/${first!.id}/resend`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(resend.status).toBe(200);
    await expect.poll(() => sb.deliveries().then((d) => d.length)).toBe(2);
    const second = (await sb.deliveries())[1]!;
    expect(second).toMatchObject({ attempt: 1, statusCode: 200, resendOf: first!.id, body: first!.body });
    expect(received[1]!.body).toBe(received[0]!.body);
    expect(received[1]!.signature).toBe(received[0]!.signature);
    expect((await fetch(`${sb.baseUrl}/_sandbox/deliveries/dlv_nope/resend`, { method: 'POST', headers: { 'content-type': 'application/json' } })).status).toBe(404);
    const foreign = await fetch(`${sb.baseUrl}/_sandbox/deliveries/${first!.id}/resend`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    await call('DELETE', `/v1/webhooks/${hook.id}`);
    expect((await fetch(`${sb.baseUrl}/_sandbox/deliveries/${first!.id}/resend`, { method: 'POST', headers: { 'content-type': 'application/json' } })).status).toBe(409);
  });
});

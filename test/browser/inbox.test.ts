/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the browser.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../helpers/browser.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/** Where `scripts/screenshots.mjs` wants the PNGs of the docs; unset, they go to a temp dir. */
const SHOTS = process.env.MAILROOM_SCREENSHOTS_DIR;

// A 1×1 PNG, served by the "remote" image host.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

interface Hit {
  path: string;
  method: string;
  body: string;
  signature?: string;
}

/** A stand-in for the outside world: image host, link target and webhook receiver at once. */
async function outside() {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', method: req.method ?? '', body, signature: req.headers['x-smashsend-signature'] as string | undefined });
      if (req.url?.endsWith('.png')) {
        res.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL);
      } else {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Landing</title><h1>landing page</h1>');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { hits, url, close: () => new Promise((r) => server.close(r)) };
}

describe.skipIf(chromiumMissing)('the inbox in headless Chromium', () => {
  let browser: Browser;
  let sb: TestSandbox;
  let world: Awaited<ReturnType<typeof outside>>;
  let call: ReturnType<typeof client>;
  let context: BrowserContext;
  let page: Page;

  const send = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/v1/emails', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.email.id as string;
  };
  const raw = (over: Record<string, unknown> = {}) => ({
    from: 'Acme Billing <billing@acme.test>',
    to: 'ada@customer.test',
    subject: 'Your receipt #1042',
    html: '<h1 style="font-family:sans-serif">Thanks, Ada</h1><p>We received your payment of <b>€42.00</b>.</p><p><a href="https://example.com/receipt">View receipt</a></p>',
    previewText: 'Payment received: €42.00',
    ...over,
  });
  const rowIds = () => page.locator('#list > li').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  };
  /** No horizontal scrolling at this width: the layout fits. */
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  beforeAll(async () => {
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    [browser, sb, world] = await Promise.all([
      launchChromium(),
      withSandbox({
        config: {
          verifiedDomains: ['acme.test', 'example.com'],
          templates: { welcome: { from: 'hello@acme.test', subject: 'Welcome, {{name}}!', html: '<h1>Welcome, {{name}}</h1><p>Your {{plan}} plan is ready.</p>' } },
          deliveries: { retryDelaysMs: [60_000] },
        },
      }),
      outside(),
    ]);
    call = client(sb);
  });
  afterAll(async () => {
    await browser?.close();
    await sb?.close();
    await world?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterEach(async () => {
    await context.close();
    await sb.reset();
    for (const hook of (await call('GET', '/v1/webhooks')).body.webhooks.items) await call('DELETE', `/v1/webhooks/${hook.id}`);
    world.hits.length = 0;
  });

  test('list: newest first, unread until opened, counts; search, filters and keyboard navigation', async () => {
    const a = await send(raw({ to: 'bob@customer.test', subject: 'Invoice 7' }));
    const b = await send({ template: 'welcome', to: 'carol@customer.test', variables: { name: 'Carol', plan: 'Pro' } });
    const c = await send(raw({ sendAt: new Date(Date.now() + 86_400_000).toISOString(), subject: 'Tomorrow' }));
    await page.goto(`${sb.baseUrl}/`);
    expect(await rowIds()).toEqual([c, b, a]);
    expect(await page.locator('.row.unread').count()).toBe(3);
    await expect.poll(() => page.locator('#unread').textContent()).toBe('3 unread on this page');
    expect(await page.locator('.summary').innerText()).toMatch(/3 emails\s+2 sent\s+1 scheduled\s+2 raw\s+1 template/);
    const time = page.locator(`li[data-id="${a}"] time`);
    expect(await time.textContent()).toBe('just now');
    expect(await time.getAttribute('title')).toContain((await sb.emails())[0]!.createdAt);

    // Search box, then a filter that submits itself.
    await page.fill('input[name=q]', 'BOB');
    await page.press('input[name=q]', 'Enter');
    await page.waitForURL(/\?q=BOB/);
    expect(await rowIds()).toEqual([a]);
    await page.goto(`${sb.baseUrl}/`);
    await page.selectOption('select[name=status]', 'SCHEDULED');
    await page.waitForURL(/status=SCHEDULED/);
    expect(await rowIds()).toEqual([c]);
    await page.goto(`${sb.baseUrl}/?kind=template`);
    expect(await rowIds()).toEqual([b]);

    // j j Enter opens the second row; u comes back, where it is read now.
    await page.goto(`${sb.baseUrl}/`);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    expect(await page.locator('.row.selected').getAttribute('data-id')).toBe(b);
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/inbox/${b}`);
    expect(await page.locator('h1').textContent()).toBe('Welcome, Carol!');
    await page.keyboard.press('j');
    await page.waitForURL(`**/inbox/${a}`);
    await page.keyboard.press('u');
    await page.waitForURL(`${sb.baseUrl}/`);
    expect(await page.locator('.row.unread').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))).toEqual([c]);
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('q');
  });

  test('paging: 50 a page, the older ones on the next', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 53; i++) ids.push(await send(raw({ subject: `Message ${i}` })));
    await page.goto(`${sb.baseUrl}/`);
    expect(await rowIds()).toEqual(ids.slice(3).reverse());
    await page.click('a[rel=next]');
    await page.waitForURL(/page=2/);
    expect(await rowIds()).toEqual(ids.slice(0, 3).reverse());
    expect(await page.locator('.pager .count').textContent()).toBe('51–53 of 53 emails');
    await page.click('a[rel=prev]');
    await page.waitForURL(`${sb.baseUrl}/`);
    expect(await rowIds()).toHaveLength(50);
  });

  test('each tab: HTML in its frame with a mobile width, Text, Source, Details, Checks', async () => {
    const id = await send(raw({ idempotencyKey: 'order-1042', groupBy: 'receipts', contactProperties: { plan: 'pro' }, replyTo: 'help@acme.test' }));
    await page.goto(`${sb.baseUrl}/inbox/${id}`);
    const frame = page.frameLocator('iframe[title="Email HTML"]');
    expect(await frame.locator('h1').textContent()).toBe('Thanks, Ada');
    expect(await page.locator('iframe').evaluate((f) => f.getBoundingClientRect().width)).toBeGreaterThan(900);
    await page.click('text=Mobile');
    await page.waitForURL(/width=mobile/);
    expect(await page.locator('iframe').evaluate((f) => f.getBoundingClientRect().width)).toBe(375);

    await page.click('.tabs >> text=Text');
    await page.waitForURL(/tab=text/);
    expect(await page.locator('pre.text').textContent()).toContain('We received your payment of €42.00.');
    await page.click('.tabs >> text=Source');
    const stored = (await call('GET', `/_sandbox/emails/${id}`)).body.email;
    expect(JSON.parse((await page.locator('.panel pre.code').textContent())!)).toEqual(stored);
    await page.click('.tabs >> text=Details');
    const details = await page.locator('dl.details').innerText();
    for (const needle of ['order-1042', 'receipts', '"plan": "pro"', 'Payment received: €42.00', 'help@acme.test', stored.requestId, stored.messageId, 'clicks on, opens off']) {
      expect(details).toContain(needle);
    }
    // The same report `sandbox email --checks` prints: this HTML has no <title>, and nothing else wrong.
    await page.click('.tabs >> text=Checks');
    await page.waitForURL(/tab=checks/);
    const report = (await call('GET', `/_sandbox/emails/${id}/checks`)).body;
    expect(report.results[0].findings.map((f: { check: string }) => f.check)).toEqual(['head-no-title']);
    expect(await page.locator('table.checks tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-check')))).toEqual(['head-no-title']);
    expect(await page.locator('table.checks tbody tr').innerText()).toMatch(/^warning\s+head-no-title\s+the HTML has no <title>\s+add <title>/);
  });

  test('links open in a new tab; a script in an email never runs; remote images load only when asked', async () => {
    const html =
      `<p id="p">static</p><a id="go" href="${world.url}/landing">Open the landing page</a>` +
      `<img id="pixel" src="${world.url}/pixel.png" alt="">` +
      '<script>document.getElementById("p").textContent = "script ran"; try { parent.document.title = "pwned" } catch (e) {}</script>' +
      '<img src="x:broken" onerror="document.getElementById(\'p\').textContent = \'handler ran\'">';
    const id = await send(raw({ html, subject: 'Hostile' }));
    await page.goto(`${sb.baseUrl}/inbox/${id}`);
    const frame = page.frameLocator('iframe[title="Email HTML"]');
    await frame.locator('#p').waitFor();
    await page.waitForLoadState('load');
    expect(await frame.locator('#p').textContent()).toBe('static');
    expect(await page.title()).toBe('Hostile · mailroom sandbox');
    expect(world.hits.filter((h) => h.path === '/pixel.png')).toEqual([]);
    expect(await frame.locator('#pixel').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(0);
    expect(await page.locator('.images').innerText()).toContain('1 remote image blocked');

    // The link leaves the sandboxed frame as a new tab, not sandboxed itself.
    expect(await frame.locator('#go').getAttribute('target')).toBe('_blank');
    const [tab] = await Promise.all([context.waitForEvent('page'), frame.locator('#go').click()]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(`${world.url}/landing`);
    expect(await tab.locator('h1').textContent()).toBe('landing page');
    expect(await tab.evaluate(() => window.opener)).toBeNull();
    await tab.close();

    await page.click('#load-images');
    await page.waitForURL(/images=1/);
    await expect.poll(() => frame.locator('#pixel').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    expect(world.hits.filter((h) => h.path === '/pixel.png')).toHaveLength(1);
    expect(await frame.locator('#p').textContent()).toBe('static');
  });

  test('live: a new email appears and a scheduled one turns SENT without a reload', async () => {
    await page.goto(`${sb.baseUrl}/`);
    await page.locator('#live.on').waitFor();
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    const id = await send(raw({ subject: 'Arrives live' }));
    await page.locator(`li[data-id="${id}"]`).waitFor();
    expect(await page.locator(`li[data-id="${id}"]`).getAttribute('class')).toContain('unread');
    expect(await page.locator('.sections [data-count=emails]').textContent()).toBe('1');

    const later = await send(raw({ subject: 'Soon', sendAt: new Date(Date.now() + 1500).toISOString() }));
    await page.goto(`${sb.baseUrl}/inbox/${later}`);
    expect(await page.locator('#live-region .st').textContent()).toBe('SCHEDULED');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 2));
    await page.locator('#live-region .st.SENT').waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { marker: number }).marker)).toBe(2);
  });

  test("a workspace deleted while its page is open: the page says so, and stops listening", async () => {
    const made = await call('POST', '/_sandbox/workspaces', { name: 'worker 7' });
    expect(made.status).toBe(200);
    const id = made.body.workspaceId as string;
    await page.goto(`${sb.baseUrl}/?workspace=${id}`);
    await page.locator('#live.on').waitFor();
    expect(await page.locator('#gone').count()).toBe(0);
    expect((await call('DELETE', `/_sandbox/workspaces/${id}`, {})).status).toBe(200);
    await page.locator('#gone').waitFor({ timeout: 10_000 });
    expect(await page.locator('#gone').textContent()).toBe(`Workspace ${id} is no longer in this sandbox (deleted, or the sandbox restarted without it): this page will not change.`);
    expect(await page.locator('#live').getAttribute('class')).toBe('live off');
    expect(await page.locator('#live').getAttribute('title')).toBe('Live updates: off (the workspace is gone)');
  });

  test('delete one, then delete all', async () => {
    const a = await send(raw({ subject: 'First' }));
    const b = await send(raw({ subject: 'Second' }));
    const c = await send(raw({ subject: 'Third' }));
    await page.goto(`${sb.baseUrl}/inbox/${b}`);
    await page.click('button[data-action=delete]');
    await page.waitForURL(`**/inbox/${a}`);
    expect((await sb.emails()).map((e) => e.id)).toEqual([a, c]);
    await page.goto(`${sb.baseUrl}/`);
    page.once('dialog', (d) => void d.accept());
    await page.click('button[data-action=clear]');
    await page.locator('.empty').waitFor();
    expect(await sb.emails()).toEqual([]);
    const gone = await page.goto(`${sb.baseUrl}/inbox/${a}`);
    expect(gone!.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Not found');
  });

  test('deliveries: every attempt with its signed body and signature; resend delivers again, live', async () => {
    const hook = (await call('POST', '/v1/webhooks', { url: `${world.url}/hooks`, events: ['CONTACT_CREATED'] })).body.webhook;
    await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED', email: 'ada@customer.test' });
    await expect.poll(() => sb.deliveries().then((d) => d.length)).toBe(1);
    const [first] = await sb.deliveries();
    await page.goto(`${sb.baseUrl}/deliveries`);
    const row = page.locator(`li[data-id="${first!.id}"]`);
    expect(await row.locator(':scope > details > summary').innerText()).toMatch(new RegExp(`200\\s+CONTACT_CREATED\\s+${world.url}/hooks\\s+attempt 1`));
    await row.locator(':scope > details > summary').click();
    const text = await row.locator('.delivery-body').innerText();
    expect(text).toContain(`x-smashsend-signature: ${first!.signature}`);
    expect(first!.body).toBe(world.hits.find((h) => h.path === '/hooks')!.body);
    expect(await row.locator('details.raw pre').textContent()).toBe(first!.body);
    expect(hook.id).toBe(first!.webhookId);

    await row.locator('button[data-action=resend]').click();
    await page.locator('#list > li').nth(1).waitFor();
    expect(await page.locator(`li[data-id="${first!.id}"] > details`).getAttribute('open')).toBe('');
    const hooks = world.hits.filter((h) => h.path === '/hooks');
    expect(hooks).toHaveLength(2);
    expect(hooks[1]!.body).toBe(hooks[0]!.body);
    expect(hooks[1]!.signature).toBe(hooks[0]!.signature);
    expect(await page.locator('#list > li').first().innerText()).toContain('(resent)');
  });

  test('layout at 1280 and 375 px: nothing overflows sideways, the key columns stay visible', async () => {
    await send(raw({ to: 'bob@customer.test', subject: 'Invoice 7 for your subscription of the Pro plan, with a long subject that must not break the layout' }));
    await send({ template: 'welcome', to: 'carol.with.a.rather.long.address@customer-with-a-long-domain.test', variables: { name: 'Carol', plan: 'Pro' } });
    const id = await send(raw());
    await send(raw({ to: 'dan@customer.test', subject: 'Your trial ends tomorrow', sendAt: new Date(Date.now() + 86_400_000).toISOString() }));
    await call('POST', '/v1/webhooks', { url: `${world.url}/hooks`, events: ['CONTACT_CREATED'] });
    await call('POST', '/_sandbox/events', { event: 'CONTACT_CREATED', email: 'ada@customer.test' });
    await expect.poll(() => sb.deliveries().then((d) => d.length)).toBe(1);

    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: width === 375 ? 740 : 800 });
      for (const [name, path] of [
        ['list', '/'],
        ['email', `/inbox/${id}`],
        ['email-details', `/inbox/${id}?tab=details`],
        ['deliveries', '/deliveries'],
      ] as const) {
        await page.goto(`${sb.baseUrl}${path}`);
        if (name === 'deliveries') await page.locator('#list summary').first().click();
        if (name === 'email') await page.frameLocator('iframe[title="Email HTML"]').locator('h1').waitFor();
        expect(await overflow(), `${name} at ${width}px`).toBeLessThanOrEqual(0);
        if (name === 'list') {
          // To, status and time of each row are inside the viewport.
          for (const sel of ['.to', '.st', 'time']) {
            const boxes = await page.locator(`#list .row ${sel}`).evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
            for (const right of boxes) expect(right, `${sel} at ${width}px`).toBeLessThanOrEqual(width);
          }
          // Timestamps never break mid-string.
          const heights = await page.locator('#list time').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
          for (const h of heights) expect(h).toBeLessThan(30);
        }
        await shot(`inbox-${name}-${width}`);
      }
    }
  });
});

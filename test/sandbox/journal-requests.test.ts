import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { resolveConfig } from '../../src/sandbox/config.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { decodeLine } from '../../src/sandbox/journal-lines.js';
import { Persistence } from '../../src/sandbox/persistence.js';
import { SandboxState, type InboxEmail } from '../../src/sandbox/state.js';
import { withText } from '../../src/sandbox/text.js';
import { workspaceParts } from '../../src/sandbox/workspaces.js';
import { client } from '../helpers/sandbox.js';

// `--data` journals a request whose every entry was accepted as a new raw email as one line
// holding its body as it came, with the ids and time the sandbox chose; a restart builds its
// emails again through the functions that built them (accepted-email.ts). What it gives back must
// be exactly what the request made: every email field in its place, the answers idempotency keys
// give, the contacts, the counts.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailroom-journal-requests-'));
});
const left: Persistence[] = [];
afterEach(async () => {
  for (const p of left.splice(0)) await p.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const noError = (err: Error) => {
  throw err;
};

/** Everything a restored state serves, in order, as JSON: any field out of place or of another value differs. */
function served(state: SandboxState): string {
  for (const email of state.emails) withText(email);
  return JSON.stringify({
    ...state.snapshot(),
    contacts: [...state.contacts.values()],
    idempotency: [...state.idempotency],
    sent: state.sentIn(new Date(state.emails[0]?.createdAt ?? Date.now())),
  });
}

async function journalLines(): Promise<Record<string, unknown>[]> {
  const journal = join(dir, (await readdir(dir)).find((f) => f.includes('.journal-'))!);
  return (await readFile(journal, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('a request journaled as its body', () => {
  test('read back, every email, answer, contact and count is what the requests made; only requests every entry of which was accepted as a new raw email are kept as their bodies', async () => {
    const file = join(dir, 'state.json');
    const p = await Persistence.open(file, () => SandboxState.fresh('sk_live_requests'), noError);
    left.push(p);
    await p.start();
    const parts = workspaceParts(p.current, resolveConfig({}), (change) => p.record(change));
    const now = new Date();
    const inAnHour = new Date(now.getTime() + 3_600_000);
    // As a client sends them: pretty-printed (line feeds and CRs between tokens), beyond ASCII, a sendAt with an offset.
    const bodies: [string, 'batch' | 'send', string][] = [
      [
        'batch',
        'batch',
        JSON.stringify(
          {
            emails: [
              { from: 'shop@example.com', fromName: 'Café Shop', to: 'ada@customer.test', subject: 'Grüße 🎉', html: '<p>Danke — 1</p>', contactProperties: { plan: 'pro', seats: 3, beta: true, note: null }, idempotencyKey: 'k-1' },
              { from: 'The Shop <shop@example.com>', to: 'bob@customer.test', subject: 'Later', html: '<p>2</p>', sendAt: inAnHour.toISOString().replace('Z', '+00:00'), groupBy: 'orders', idempotencyKey: 'k-2' },
              { from: 'shop@example.com', to: 'cy@customer.test', subject: 'Text', html: '<p>3</p>', text: 'line 1\nline 2', previewText: 'pre', replyTo: ['a@example.com', 'b@example.com'], settings: { trackOpens: true } },
              // The same address as the first, in another case: no new contact.
              { from: 'shop@example.com', to: 'ADA@customer.test', subject: 'Again', html: '<p>4</p>' },
            ],
          },
          null,
          2,
        ).replaceAll('\n', '\r\n'),
      ],
      ['send', 'send', '{"from":"shop@example.com","to":"dee@customer.test","subject":"One","html":"<p>5</p>","idempotencyKey":"k-5"}'],
      // Written email by email: a templated entry; a repeated key; a refused entry; a contact updated.
      ['e', 'batch', JSON.stringify({ emails: [{ template: 'welcome', to: 'eve@customer.test', variables: { name: 'Eve' } }, { from: 'shop@example.com', to: 'fay@customer.test', subject: 'F', html: '<p>6</p>' }] })],
      ['e', 'batch', JSON.stringify({ emails: [{ from: 'shop@example.com', to: 'ada@customer.test', subject: 'Repeat', html: '<p>r</p>', idempotencyKey: 'k-1' }, { from: 'shop@example.com', to: 'gus@customer.test', subject: 'G', html: '<p>7</p>' }] })],
      ['e', 'batch', JSON.stringify({ emails: [{ from: 'shop@unverified.test', to: 'hal@customer.test', subject: 'H', html: '<p>8</p>' }, { from: 'shop@example.com', to: 'ivy@customer.test', subject: 'I', html: '<p>9</p>' }] })],
      ['e', 'send', JSON.stringify({ from: 'shop@example.com', to: 'bob@customer.test', subject: 'Upgrade', html: '<p>10</p>', contactProperties: { plan: 'team' } })],
    ];
    const answers: unknown[] = [];
    for (const [i, [, kind, text]] of bodies.entries()) {
      const raw = Buffer.from(text);
      const body = JSON.parse(raw.toString('utf8')) as { emails: unknown[] };
      const at = new Date(now.getTime() + i);
      answers.push(kind === 'batch' ? parts.emails.sendBatch(body.emails, at, `req_${i}`, raw) : parts.emails.send(body, at, `req_${i}`, raw));
    }
    expect(JSON.stringify(answers)).toContain('"failed":[{"index":0');
    await p.durable();

    const lines = await journalLines();
    expect(lines.map((l) => l.t)).toEqual(['batch', 'send', 'e', 'e', 'e', 'e', 'e']);
    // The body as it came, its line feeds made spaces: the journal stays one line per record.
    expect(JSON.stringify(lines[0]!.body)).toBe(JSON.stringify(JSON.parse(bodies[0]![2])));
    // What the sandbox chose: the seed of the ids, and which emails made a contact (the fourth's address was known).
    expect(lines[0]!.seed).toMatch(/^[0-9a-f]{32}$/);
    expect(lines[0]!.c).toBe('1110');
    expect(lines[1]!.c).toBe('1');

    const again = await Persistence.open(file, () => SandboxState.fresh(undefined), noError);
    expect(served(again.current)).toBe(served(p.current));
    expect(again.current.emails.map((e) => e.status)).toEqual(['SENT', 'SCHEDULED', 'SENT', 'SENT', 'SENT', 'SENT', 'SENT', 'SENT', 'SENT', 'SENT']);
    expect(again.current.emailsById.get(again.current.emails[1]!.id)!.sendAt).toBe(inAnHour.toISOString());
    expect(again.current.contacts.get('ada@customer.test')!.properties).toEqual({ status: 'SUBSCRIBED', plan: 'pro', seats: 3, beta: true, note: null });
    expect(again.current.contacts.get('bob@customer.test')!.properties).toEqual({ status: 'SUBSCRIBED', plan: 'team' });
    await parts.close();
  });

  test('a damaged request line amid a journal refuses the start, naming its line; a torn last one is dropped', async () => {
    const email = { from: 'shop@example.com', to: 'ada@customer.test', subject: 'S', html: '<p>1</p>' };
    const line = { t: 'batch', at: '2026-11-26T09:32:35.021Z', r: 'req_1', ids: ['trs_1', 'm-1', 'ctc_1', 'trs_2', 'm-2', ''], body: { emails: [email, { ...email, to: 'bob@customer.test' }] } };
    expect(decodeLine(JSON.stringify(line))).toMatchObject({ t: 'request', emails: [{ email: { id: 'trs_1', createdAt: line.at, requestId: 'req_1' }, contact: { id: 'ctc_1' } }, { email: { id: 'trs_2' } }] });
    const damaged: unknown[] = [
      { ...line, ids: line.ids.slice(0, 5) },
      { ...line, ids: [...line.ids.slice(0, 5), 7] },
      { ...line, at: 'yesterday' },
      { ...line, at: '2026-11-26T09:32:35Z' },
      { ...line, r: 5 },
      { ...line, body: { emails: [email, { ...email, to: 'not an address' }] } },
      { ...line, body: { emails: [email, { template: 'welcome', to: 'bob@customer.test' }] } },
      { ...line, body: { emails: [] }, ids: [] },
      { ...line, body: [email, email] },
      { ...line, t: 'send' },
      { ...line, w: 5 },
    ];
    for (const d of damaged) expect(decodeLine(JSON.stringify(d)), JSON.stringify(d)).toBeUndefined();
    // As written since: the seed the ids were drawn from, and which emails made a contact.
    const { ids: _ids, ...rest } = line;
    const seeded = { ...rest, seed: '0123456789abcdef0123456789abcdef', c: '10' };
    const decoded = decodeLine(JSON.stringify(seeded));
    expect(decoded).toMatchObject({ t: 'request', emails: [{ email: { id: expect.stringMatching(/^trs_[0-9A-Za-z]{20}$/), messageId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) }, contact: { id: expect.stringMatching(/^ctc_/) } }, { email: { to: 'bob@customer.test' } }] });
    expect(decoded?.t === 'request' && decoded.emails[1]!.contact).toBe(undefined);
    // The same seed, the same ids.
    expect(JSON.stringify(decodeLine(JSON.stringify(seeded)))).toBe(JSON.stringify(decoded));
    for (const d of [
      { ...seeded, c: '1' },
      { ...seeded, c: '12' },
      { ...seeded, c: 10 },
      { ...seeded, seed: '0123456789ABCDEF0123456789abcdef' },
      { ...seeded, seed: '0123' },
      { ...seeded, ids: line.ids },
    ]) {
      expect(decodeLine(JSON.stringify(d)), JSON.stringify(d)).toBeUndefined();
    }

    const file = join(dir, 'state.json');
    const p = await Persistence.open(file, () => SandboxState.fresh('sk_live_damaged_request'), noError);
    await p.start();
    p.abandon();
    const journal = `${file}.journal-2`;
    await writeFile(journal, `${JSON.stringify(line)}\n${JSON.stringify(line).slice(0, 120)}`);
    const reopened = await Persistence.open(file, () => SandboxState.fresh(undefined), noError);
    expect(reopened.current.emails.map((e) => e.id)).toEqual(['trs_1', 'trs_2']);
    reopened.abandon();
    await writeFile(journal, `${JSON.stringify(damaged[5])}\n${JSON.stringify(line)}\n`);
    await expect(Persistence.open(file, () => SandboxState.fresh(undefined), noError)).rejects.toThrow(`data journal ${journal} is damaged at line 1`);
  });

  test('over HTTP: the bytes the sandbox received are what it journals (never the API key), and a start on the files it leaves serves the same emails', async () => {
    const dataFile = join(dir, 'state.json');
    const apiKey = 'sk_live_request_bytes_key';
    const first = await startSandbox({ dataFile, apiKey });
    try {
      const call = client(first);
      const raw = `{\n  "emails": [\n    { "from": "Café <shop@example.com>", "to": "ada@customer.test", "subject": "Ünïcode ✓", "html": "<p>\\u00e9 and é</p>", "idempotencyKey": "http-1" },\n    { "from": "shop@example.com", "to": "bob@customer.test", "subject": "Two", "html": "<p>2</p>", "idempotencyKey": "http-3" }\n  ]\n}\n`;
      const batch = await call('POST', '/v1/emails/batch', undefined, { raw });
      expect(batch.status).toBe(200);
      const one = await call('POST', '/v1/emails', { from: 'shop@example.com', to: 'cy@customer.test', subject: 'One', html: '<p>1</p>', idempotencyKey: 'http-2' });
      expect(one.status).toBe(200);
      const lines = await journalLines();
      expect(lines.map((l) => l.t)).toEqual(['batch', 'send']);
      const journal = join(dir, (await readdir(dir)).find((f) => f.includes('.journal-'))!);
      expect(await readFile(journal, 'utf8')).toContain(raw.replaceAll('\n', ' '));
      expect(await readFile(journal, 'utf8')).not.toContain(apiKey);

      // The files a SIGKILL would leave now: every answer above waited for its flush.
      const copy = join(dir, 'copy');
      await mkdir(copy);
      for (const f of await readdir(dir)) if (f.startsWith('state.json.journal') || f === 'state.json') await copyFile(join(dir, f), join(copy, f));
      const killed = await startSandbox({ dataFile: join(copy, 'state.json') });
      try {
        const emails = async (sb: typeof first) => ((await sb.call('GET', '/_sandbox/emails')).body as { items: InboxEmail[] }).items;
        expect(JSON.stringify(await emails(killed))).toBe(JSON.stringify(await emails(first)));
        // A repeat answers what the first answered, byte for byte.
        const again = await client(killed)('POST', '/v1/emails/batch', undefined, { raw, key: apiKey });
        expect(JSON.stringify(again.body)).toBe(JSON.stringify(batch.body));
      } finally {
        await killed.close();
      }
    } finally {
      await first.close();
    }
  });
});

describe('compaction of a journal of requests kept as their bodies', () => {
  /** How many emails, sent in batches of 10, until the first compaction: as bodies (`raw`), or as email lines. */
  async function emailsUntilCompaction(raw: boolean): Promise<number> {
    const at = join(dir, raw ? 'bodies' : 'lines');
    await mkdir(at);
    const file = join(at, 'state.json');
    const p = await Persistence.open(file, () => SandboxState.fresh('sk_live_compaction'), noError, 64 * 1024);
    left.push(p);
    await p.start();
    const parts = workspaceParts(p.current, resolveConfig({}), (change) => p.record(change));
    const first = (JSON.parse(await readFile(file, 'utf8')) as { journal: number }).journal;
    try {
      for (let n = 0; ; n += 10) {
        const emails = Array.from({ length: 10 }, (_, i) => ({ from: 'Shop <shop@example.com>', to: `user${n + i}@customer.test`, subject: `Order ${n + i} shipped`, html: `<h1>Hi user ${n + i}</h1><p>Your order <b>#${n + i}</b> is on its way.</p>`, idempotencyKey: `order-${n + i}` }));
        const bytes = Buffer.from(JSON.stringify({ emails }));
        parts.emails.sendBatch(emails, new Date(), `req_${n}`, raw ? bytes : undefined);
        await p.durable();
        await p.idle();
        if ((JSON.parse(await readFile(file, 'utf8')) as { journal: number }).journal !== first) return n + 10;
      }
    } finally {
      await parts.close();
    }
  }

  test('comes as often per email as for email lines: a start after a crash replays no more emails than before', async () => {
    // Replaying an email costs about as much from a body as from an email line, though the body is about half the bytes.
    const lines = await emailsUntilCompaction(false);
    const bodies = await emailsUntilCompaction(true);
    expect(lines).toBeGreaterThan(50);
    expect(bodies / lines).toBeGreaterThan(0.8);
    expect(bodies / lines).toBeLessThan(1.2);
  });
});

describe('data files of this version', () => {
  // Sandboxes of 2026-11-26 (requests kept as their bodies, other emails one line each, two
  // workspaces) wrote these, then were killed with SIGKILL: test/fixtures/sandbox-data-v3 (ids
  // drawn from each request's seed), test/fixtures/sandbox-data-v2 (the ids listed, as written for
  // an hour before the seed). The same requests in both.
  test('a snapshot and a journal of request lines with seeds and email lines load whole: the ids drawn again are those the sandbox answered', async () => {
    for (const name of ['state.json', 'state.json.journal-1']) await writeFile(join(dir, name), await readFile(new URL(`../fixtures/sandbox-data-v3/${name}`, import.meta.url)));
    const p = await Persistence.open(join(dir, 'state.json'), () => SandboxState.fresh(undefined), noError);
    left.push(p);
    const state = p.current;
    // As answered over HTTP when the fixture was made.
    expect(state.emails.map((e) => [e.id, e.messageId, e.status, e.to, e.idempotencyKey])).toEqual([
      ['trs_Zn0nWOhsE9OrOzSv16j3', '982bda91-907b-4c30-87c1-56f623e4b769', 'SENT', 'ada1@customer.test', 'order-1'],
      ['trs_FcssXTGMSp53AhOrQUfw', 'ca7fba3d-dd4e-4ae3-92ff-fa9a4055958c', 'SENT', 'ada2@customer.test', 'order-2'],
      ['trs_ZH9ISCKywozfU970EFk1', '50edeec9-32a4-48f1-8828-1b2b99221245', 'SCHEDULED', 'ada3@customer.test', 'order-3'],
      ['trs_4LF56d3S4k2MLkFXfy9e', 'f9511afe-2d1d-47f8-b05b-50fcf2e0b64e', 'SENT', 'ada4@customer.test', undefined],
      ['trs_MiwyAdfg6UrdIs3j2W0G', '0c79c49f-5eaa-4bb5-b770-aa6aa4619636', 'SENT', 'ada5@customer.test', 'order-5'],
      ['trs_PxW9CrFypPBDLz0gUEMu', 'cf0d0c55-80c2-49bd-926d-296c55f0fe89', 'SENT', 'ada6@customer.test', undefined],
      ['trs_WzmTlxsP1HWQNGemP3g0', 'a8cd4206-8ed6-418e-ad82-0b4122ada795', 'SENT', 'ADA1@customer.test', 'order-7'],
      ['trs_xRv0hohlIJ993G41ROSw', '518be3b0-6c97-467a-b2a8-2be0eacc6751', 'SENT', 'ada2@customer.test', undefined],
    ]);
    expect(JSON.stringify(state.idempotency.get('order-1'))).toBe('{"id":"trs_Zn0nWOhsE9OrOzSv16j3","messageId":"982bda91-907b-4c30-87c1-56f623e4b769","status":"SENT","to":"ada1@customer.test","type":"raw","from":"shop@example.com","subject":"Grüße 🎉 order 1"}');
    expect(JSON.stringify(state.idempotency.get('order-2'))).toBe('{"id":"trs_FcssXTGMSp53AhOrQUfw","messageId":"ca7fba3d-dd4e-4ae3-92ff-fa9a4055958c","status":"SENT","to":"ada2@customer.test","type":"raw","from":"Shop <shop@example.com>","subject":"Order 2","groupBy":"orders"}');
    expect(state.emails[0]).toMatchObject({ from: 'Café Shop <shop@example.com>', fromName: 'Café Shop', contactProperties: { plan: 'pro', seats: 3 }, createdAt: '2026-11-26T09:46:29.040Z', requestId: 'req_Kq94k6cZSKtZxSfs' });
    expect(state.emails[3]).toMatchObject({ text: 'Order 4 text\nline 2', settings: { trackClicks: false, trackOpens: true }, replyTo: 'help@example.com', previewText: 'your order' });
    // The contact the first email made, then updated by the seventh (its line names it): the id drawn from the first request's seed.
    expect([...state.contacts.values()].map((c) => [c.id, c.email, c.properties])).toEqual([
      ['ctc_fkXQQSMuRYI0sTPMUGee', 'ada1@customer.test', { status: 'SUBSCRIBED', plan: 'team', seats: 3 }],
      ['ctc_UHpFp53ZU1OfY2zDE4t5', 'ada2@customer.test', { status: 'SUBSCRIBED' }],
      ['ctc_TfJTUAoKz5G0xh13rTEo', 'ada3@customer.test', { status: 'SUBSCRIBED' }],
      ['ctc_Th3bZZ0VUqT7eHpw2QeJ', 'ada4@customer.test', { status: 'SUBSCRIBED' }],
      ['ctc_yYpD9dwrmPmiPK0ifsCy', 'ada5@customer.test', { status: 'SUBSCRIBED' }],
      ['ctc_KXHSh6BVW944qGsiWrUK', 'ada6@customer.test', { status: 'SUBSCRIBED' }],
    ]);
    expect(state.sentThisMonth).toEqual({ month: '2026-11', count: 8 });
    expect(state.tally).toEqual({ SENT: { raw: 6, templated: 1 }, SCHEDULED: { raw: 1, templated: 0 } });
    const [made] = p.workspaces;
    expect(made!.emails.map((e) => [e.id, e.messageId])).toEqual([['trs_l3grZXUH3ccu5Pd84Orz', '33a9ee7c-587f-4431-8a06-b9e723fddd75']]);
    expect([...made!.contacts.values()].map((c) => c.id)).toEqual(['ctc_ij7yjCNPfRaDa2kJtRl3']);
  });

  test('a snapshot and a journal of request lines listing their ids and email lines load whole', async () => {
    for (const name of ['state.json', 'state.json.journal-1']) await writeFile(join(dir, name), await readFile(new URL(`../fixtures/sandbox-data-v2/${name}`, import.meta.url)));
    const p = await Persistence.open(join(dir, 'state.json'), () => SandboxState.fresh(undefined), noError);
    left.push(p);
    const state = p.current;
    expect(state.emails.map((e) => [e.id, e.status, e.type, e.to, e.subject, e.idempotencyKey, e.requestId])).toEqual([
      ['trs_Xkjq6lREQ6i5OHFv4M98', 'SENT', 'raw', 'ada1@customer.test', 'Grüße 🎉 order 1', 'order-1', 'req_tauZX2guYPh3xrf7'],
      ['trs_UUTr6PtbDre71eOmEIUq', 'SENT', 'raw', 'ada2@customer.test', 'Order 2', 'order-2', 'req_o2P0ftavTlJQmH79'],
      ['trs_fquOACSo6RwySU4ZlEzb', 'SCHEDULED', 'raw', 'ada3@customer.test', 'Order 3 later', 'order-3', 'req_o2P0ftavTlJQmH79'],
      ['trs_1Oopgaat9du26jn6hYca', 'SENT', 'raw', 'ada4@customer.test', 'Order 4', undefined, 'req_o2P0ftavTlJQmH79'],
      ['trs_GaR1zY9GvFKfY5DysBTN', 'SENT', 'templated', 'ada5@customer.test', 'Welcome, Ada', 'order-5', expect.stringMatching(/^req_/)],
      ['trs_9TxPDAVuy6Gm33RokKP8', 'SENT', 'raw', 'ada6@customer.test', 'Order 6', undefined, 'req_im57iN9V2rJo8583'],
      ['trs_YxSva7b5jVx7BrpiHnHS', 'SENT', 'raw', 'ADA1@customer.test', 'Upgrade', 'order-7', expect.stringMatching(/^req_/)],
      ['trs_pQcP2fQqaR2iHW4D2WRb', 'SENT', 'raw', 'ada2@customer.test', 'Again', undefined, 'req_ZIY0XJ5tTeDsePy4'],
    ]);
    expect(JSON.stringify(state.emails[0])).toBe(
      JSON.stringify({
        id: 'trs_Xkjq6lREQ6i5OHFv4M98',
        messageId: 'c0b5f206-e8f8-46b3-bded-e4fedd163967',
        status: 'SENT',
        type: 'raw',
        to: 'ada1@customer.test',
        from: 'Café Shop <shop@example.com>',
        subject: 'Grüße 🎉 order 1',
        html: '<p>Danke, Ada — 1</p>',
        fromName: 'Café Shop',
        contactProperties: { plan: 'pro', seats: 3 },
        settings: { trackClicks: true, trackOpens: false },
        createdAt: '2026-11-26T09:32:35.000Z',
        idempotencyKey: 'order-1',
        requestId: 'req_tauZX2guYPh3xrf7',
      }),
    );
    expect('text' in state.emails[0]!).toBe(true);
    expect(state.emails[2]!.sendAt).toBe('2026-12-02T09:32:35.013Z');
    expect(state.emails[3]).toMatchObject({ text: 'Order 4 text\nline 2', settings: { trackClicks: false, trackOpens: true }, replyTo: 'help@example.com', previewText: 'your order' });
    // The answers its keys give: what the sandbox answered when it accepted them.
    expect(JSON.stringify(state.idempotency.get('order-1'))).toBe('{"id":"trs_Xkjq6lREQ6i5OHFv4M98","messageId":"c0b5f206-e8f8-46b3-bded-e4fedd163967","status":"SENT","to":"ada1@customer.test","type":"raw","from":"shop@example.com","subject":"Grüße 🎉 order 1"}');
    expect(JSON.stringify(state.idempotency.get('order-2'))).toBe('{"id":"trs_UUTr6PtbDre71eOmEIUq","messageId":"b8978b5f-a7d1-4c48-84c5-acb03b1a0cec","status":"SENT","to":"ada2@customer.test","type":"raw","from":"Shop <shop@example.com>","subject":"Order 2","groupBy":"orders"}');
    expect(JSON.stringify(state.idempotency.get('order-3'))).toBe('{"id":"trs_fquOACSo6RwySU4ZlEzb","messageId":"8d2b9dc1-f0e3-4b0f-8943-26780254881d","status":"SCHEDULED","to":"ada3@customer.test","type":"raw","from":"shop@example.com","subject":"Order 3 later"}');
    expect([...state.idempotency.keys()]).toEqual(['order-1', 'order-2', 'order-3', 'order-5', 'order-7']);
    expect([...state.contacts.values()].map((c) => [c.id, c.email, c.properties])).toEqual([
      ['ctc_Vnsgm3iKmjoCB8xon9Kj', 'ada1@customer.test', { status: 'SUBSCRIBED', plan: 'team', seats: 3 }],
      ['ctc_SCnOMKbSNxIW28Khg1AQ', 'ada2@customer.test', { status: 'SUBSCRIBED' }],
      ['ctc_aJt410mYjej3rU3Ir3YD', 'ada3@customer.test', { status: 'SUBSCRIBED' }],
      ['ctc_Cj38j3ljjzFUWJzozYnT', 'ada4@customer.test', { status: 'SUBSCRIBED' }],
      ['ctc_bwj6l0Fvgm8r93iG2HJ5', 'ada5@customer.test', { status: 'SUBSCRIBED' }],
      ['ctc_VwYuwZjHkK05tsSIfOMP', 'ada6@customer.test', { status: 'SUBSCRIBED' }],
    ]);
    expect(state.sentThisMonth).toEqual({ month: '2026-11', count: 8 });
    expect(state.tally).toEqual({ SENT: { raw: 6, templated: 1 }, SCHEDULED: { raw: 1, templated: 0 } });
    const [made] = p.workspaces;
    expect(made!.workspace).toEqual({ id: 'wrk_ynoa7vo9z9hY5gy6OQej', name: 'worker 1' });
    expect(made!.emails.map((e) => [e.id, e.to, e.idempotencyKey])).toEqual([['trs_nQJt8fEuRCyvgmAeomoK', 'bob1@customer.test', 'w-1']]);
    expect([...made!.contacts.values()].map((c) => c.id)).toEqual(['ctc_UdNOqa5YMTmoOYiZ61O0']);
    expect(made!.keysBySecret.has('sk_live_GCVI4VGOTWO0KFnPIo3lpr8h3hq2xHWt')).toBe(true);

    // What follows is saved too and reads back the same.
    p.current.onChange = (change) => p.record(change);
    await p.start();
    const parts = workspaceParts(p.current, resolveConfig({}), (change) => p.record(change));
    const raw = Buffer.from('{"emails":[{"from":"shop@example.com","to":"new@customer.test","subject":"New","html":"<p>n</p>","idempotencyKey":"order-8"}]}');
    parts.emails.sendBatch((JSON.parse(raw.toString()) as { emails: unknown[] }).emails, new Date(), 'req_new', raw);
    await p.durable();
    const again = await Persistence.open(join(dir, 'state.json'), () => SandboxState.fresh(undefined), noError);
    expect(served(again.current)).toBe(served(p.current));
    expect(again.current.emails.at(-1)!.idempotencyKey).toBe('order-8');
    await parts.close();
  });
});

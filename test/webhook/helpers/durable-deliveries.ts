import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the listener durability tests (in-process and spawned) send and read back. */
export const token = 'wht_e2eDurableToken4Rt7';
export const sign = (body: string, key = token) => createHmac('sha256', key).update(body).digest('hex');
export const delivery = (i: number, createdAt = new Date().toISOString()) => JSON.stringify({ event: 'CONTACT_CREATED', createdAt, data: { contact: { id: `ctc_${i}`, email: `p${i}@example.com` } } });
export const tempJournal = () => join(mkdtempSync(join(tmpdir(), 'mailroom-durable-')), 'deliveries.ndjson');

/** A signed delivery posted to the listener; its status, headers and JSON answer. */
export const post = async (url: string, body: string, signature = sign(body)) => {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-smashsend-signature': signature } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { message?: string } };
};

export const journalLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { status: number; body?: string; reason?: string; bodyBytes?: number; bodySha256?: string });

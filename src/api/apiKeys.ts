import type { ApiKey, CreateKeyRequest, KeyCheckResult, UpdateKeyRequest } from '../schema/index.js';
import { keyCheckResultSchema, keyDeleteResponseSchema, keyListResponseSchema, keyResponseSchema } from '../schema/index.js';
import type { Transport } from '../transport/index.js';
import { paths } from './paths.js';
import { callOptions, deleteRequest, parseBody, type CallOptions } from './request.js';

/** GET /v1/api-keys/check: validates the key the transport sends. */
export async function checkKey(t: Transport, opts: CallOptions = {}): Promise<KeyCheckResult> {
  const res = await t.request({ method: 'GET', path: paths.keyCheck(), ...callOptions(opts) });
  return parseBody(keyCheckResultSchema, res, 'key check');
}

export interface KeyPage {
  items: ApiKey[];
  hasMore: boolean;
  /** Where the next page begins; null or undefined on the last page. */
  startAt: string | null | undefined;
}

export interface ListKeysQuery {
  limit?: number | undefined;
  sort?: 'createdAt.asc' | 'createdAt.desc' | undefined;
  startAt?: string | undefined;
}

/** GET /v1/workspaces/{wrk}/api-keys: one page. */
export async function listKeys(t: Transport, workspaceId: string, query: ListKeysQuery = {}, opts: CallOptions = {}): Promise<KeyPage> {
  const res = await t.request({
    method: 'GET',
    path: paths.keys(workspaceId),
    query: { limit: query.limit, sort: query.sort, startAt: query.startAt },
    ...callOptions(opts),
  });
  const { apiKeys } = parseBody(keyListResponseSchema, res, 'key list');
  return { items: apiKeys.items, hasMore: apiKeys.hasMore === true, startAt: apiKeys.startAt };
}

/**
 * Every page from `query.startAt` on, following `hasMore`/`startAt`. Stops if a server says there
 * is more but gives no cursor, or repeats one, rather than looping for ever.
 */
export async function* keyPages(t: Transport, workspaceId: string, query: ListKeysQuery = {}, opts: CallOptions = {}): AsyncGenerator<KeyPage> {
  const seen = new Set<string>();
  let startAt = query.startAt;
  for (;;) {
    const page = await listKeys(t, workspaceId, { limit: query.limit, sort: query.sort, startAt }, opts);
    yield page;
    if (!page.hasMore || !page.startAt || seen.has(page.startAt)) return;
    seen.add(page.startAt);
    startAt = page.startAt;
  }
}

/** Every key across the pages (see keyPages), at most `max`. */
export async function listAllKeys(t: Transport, workspaceId: string, query: ListKeysQuery & { max?: number } = {}, opts: CallOptions = {}): Promise<ApiKey[]> {
  const all: ApiKey[] = [];
  const max = query.max ?? Number.POSITIVE_INFINITY;
  for await (const page of keyPages(t, workspaceId, query, opts)) {
    all.push(...page.items);
    if (all.length >= max) return all.slice(0, max);
  }
  return all;
}

/** POST /v1/workspaces/{wrk}/api-keys: the answer holds the full secret, the only time it is shown. */
export async function createKey(t: Transport, workspaceId: string, body: CreateKeyRequest, opts: CallOptions = {}): Promise<ApiKey> {
  const res = await t.request({ method: 'POST', path: paths.keys(workspaceId), body, ...callOptions(opts) });
  return parseBody(keyResponseSchema, res, 'key create').apiKey;
}

/** POST /v1/workspaces/{wrk}/api-keys/{aki}: name and role only; the secret cannot change. */
export async function updateKey(t: Transport, workspaceId: string, keyId: string, body: UpdateKeyRequest, opts: CallOptions = {}): Promise<ApiKey> {
  const res = await t.request({ method: 'POST', path: paths.key(workspaceId, keyId), body, ...callOptions(opts) });
  return parseBody(keyResponseSchema, res, 'key update').apiKey;
}

/**
 * DELETE /v1/workspaces/{wrk}/api-keys/{aki}: the key stops working at once. `'gone'` when the
 * answer was lost and a retry found the key already deleted (see deleteRequest).
 */
export async function deleteKey(t: Transport, workspaceId: string, keyId: string, opts: CallOptions = {}): Promise<ApiKey | 'gone'> {
  const res = await deleteRequest(t, paths.key(workspaceId, keyId), opts);
  return res === 'gone' ? res : parseBody(keyDeleteResponseSchema, res, 'key delete').apiKey;
}

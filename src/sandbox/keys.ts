import { createKeyRequestSchema, KEY_LIST_DEFAULT_LIMIT, KEY_LIST_MAX_LIMIT, KEY_LIST_SORTS, updateKeyRequestSchema } from '../schema/index.js';
import { HttpError } from './http-errors.js';
import { newSecret, type SandboxState, type StoredKey } from './state.js';
import { parseBody } from './validation.js';
import { mask } from '../secrets.js';

/** List, update and delete never show a secret again: `sk_live_…` and its last four characters. */
export const maskSecret = mask;

function view(key: StoredKey, full = false) {
  return {
    id: key.id,
    displayName: key.displayName,
    role: key.role,
    status: key.status,
    secretKey: full ? key.secretKey : maskSecret(key.secretKey),
    createdAt: key.createdAt,
    updatedAt: key.updatedAt,
  };
}

function findKey(state: SandboxState, id: string): StoredKey {
  const key = state.keys.get(id);
  if (!key) throw new HttpError(404, `API key ${id} not found`);
  return key;
}

export function checkKey(key: StoredKey) {
  return { status: 'SUCCEED', displayName: key.displayName, role: key.role };
}

type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) throw new HttpError(400, `Invalid request: ${name} given more than once`);
  return v;
}

/**
 * Paging as the real service does it: `limit` (default 15, max 100), `sort` by creation time, `startAt`
 * the creation time at which the next page begins, null when there is none.
 */
export function listKeys(state: SandboxState, query: Query) {
  const limitText = single(query, 'limit');
  let limit = KEY_LIST_DEFAULT_LIMIT;
  if (limitText !== undefined) {
    if (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > KEY_LIST_MAX_LIMIT) {
      throw new HttpError(400, `Invalid request: limit must be a whole number from 1 to ${KEY_LIST_MAX_LIMIT}`);
    }
    limit = Number(limitText);
  }
  const sort = single(query, 'sort') ?? 'createdAt.desc';
  if (!(KEY_LIST_SORTS as readonly string[]).includes(sort)) {
    throw new HttpError(400, `Invalid request: sort must be one of ${KEY_LIST_SORTS.join(', ')}`);
  }
  const startAtText = single(query, 'startAt');
  let startAt: number | undefined;
  if (startAtText !== undefined && startAtText !== '') {
    startAt = Date.parse(startAtText);
    if (Number.isNaN(startAt)) throw new HttpError(400, 'Invalid request: startAt must be an ISO 8601 timestamp');
  }
  const desc = sort === 'createdAt.desc';
  const ordered = [...state.keys.values()].sort((a, b) => (desc ? -1 : 1) * (Date.parse(a.createdAt) - Date.parse(b.createdAt)));
  const from = startAt === undefined ? ordered : ordered.filter((k) => (desc ? Date.parse(k.createdAt) <= startAt : Date.parse(k.createdAt) >= startAt));
  const page = from.slice(0, limit);
  const next = from[limit];
  return { apiKeys: { items: page.map((k) => view(k)), hasMore: next !== undefined, startAt: next ? next.createdAt : null } };
}

export function createKey(state: SandboxState, body: unknown) {
  const req = parseBody(createKeyRequestSchema, body);
  return { apiKey: view(state.addKey(req.displayName, req.role, newSecret()), true) };
}

export function updateKey(state: SandboxState, id: string, body: unknown) {
  const key = findKey(state, id);
  const req = parseBody(updateKeyRequestSchema, body);
  if (req.displayName !== undefined) key.displayName = req.displayName;
  if (req.role !== undefined) key.role = req.role;
  key.updatedAt = new Date().toISOString();
  state.saveKey(key);
  return { apiKey: view(key) };
}

export function deleteKey(state: SandboxState, id: string) {
  const key = findKey(state, id);
  state.deleteKey(key);
  return { apiKey: view(key), isDeleted: true as const };
}

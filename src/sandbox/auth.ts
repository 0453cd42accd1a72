import { HttpError } from './http-errors.js';
import type { SandboxState, StoredKey } from './state.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Which message a 401 carries: email and webhook endpoints name the scope they need (as the public API does). */
export type AuthScope = 'api_user' | 'check' | 'keys';

function unauthorized(scope: AuthScope, what: string): HttpError {
  const message = scope === 'api_user' ? `${what}: this endpoint requires an API key with scope api_user` : what;
  return new HttpError(401, message, {}, { 'www-authenticate': 'Bearer' });
}

/** The 401 of a key the sandbox does not know (never issued, deleted, or of a deleted workspace). */
export function unknownKey(scope: AuthScope): HttpError {
  return unauthorized(scope, 'Invalid API key');
}

/** The secret of a well-formed `Authorization: Bearer <secret>` header, else undefined. */
export function bearerSecret(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

/** The key presenting the request; a deleted key is gone from the map, so it fails at once. */
export function authenticate<T extends { key: StoredKey }>(keyOf: (secret: string) => T | undefined, header: string | undefined, scope: AuthScope): T {
  if (header === undefined || header === '') throw unauthorized(scope, 'Missing API key (send the header "Authorization: Bearer <API_KEY>")');
  const match = BEARER.exec(header);
  if (!match) throw unauthorized(scope, 'Malformed Authorization header (expected "Bearer <API_KEY>")');
  const found = keyOf(match[1]!);
  if (!found) throw unknownKey(scope);
  return found;
}

/** Keys are workspace-specific: a key may only manage the keys of its own workspace. */
export function requireWorkspace(state: SandboxState, workspaceId: string): void {
  if (workspaceId !== state.workspace.id) {
    throw new HttpError(403, `This API key lacks permissions on workspace ${workspaceId}`);
  }
}

/**
 * Roles (the spec shows no mapping to scopes): API_USER and EDITOR may do everything; a VIEWER key
 * only reads. Its writes fail as the spec's tables say: 401 naming scope api_user on the email and
 * webhook endpoints, 403 lacking permissions on the key endpoints.
 */
export function authorize(key: StoredKey, scope: AuthScope, method: string): void {
  if (key.role !== 'VIEWER' || method === 'GET' || method === 'HEAD' || scope === 'check') return;
  if (scope === 'api_user') throw unauthorized(scope, `Insufficient scope: API key "${key.displayName}" has role VIEWER`);
  throw new HttpError(403, `This API key lacks permissions: API key "${key.displayName}" has role VIEWER, which can only read`);
}


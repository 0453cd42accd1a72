import { describe, expect, it } from 'vitest';
import { rotateKey, RotateIncompleteError, type RotateDeps } from '../../../src/commands/shared/rotate-key.js';
import { MailroomError } from '../../../src/errors.js';
import type { RequestOptions, Transport } from '../../../src/transport/index.js';

const WS = 'wrk_1';
const key = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  displayName: 'deploy',
  role: 'EDITOR',
  status: 'ACTIVE',
  secretKey: 'sk_live_…abcd',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

type Handler = (req: RequestOptions) => unknown;

/** A Transport answering from a table of `METHOD path` handlers; a handler may throw to fail the call. */
function fakeTransport(handlers: Record<string, Handler>) {
  const calls: string[] = [];
  const transport: Transport = {
    async request<T>(req: RequestOptions) {
      const line = `${req.method} ${req.path}`;
      calls.push(req.body === undefined ? line : `${line} ${JSON.stringify(req.body)}`);
      const handler = handlers[line];
      if (!handler) throw new Error(`unexpected ${line}`);
      return { status: 200, body: handler(req) as T, headers: {}, requestId: 'req_1' };
    },
    async close() {},
  };
  return { transport, calls };
}

const base = (): Record<string, Handler> => ({
  [`GET /v1/workspaces/${WS}/api-keys`]: () => ({ apiKeys: { items: [key('aki_other'), key('aki_old')], hasMore: false, startAt: null } }),
  [`POST /v1/workspaces/${WS}/api-keys`]: () => ({ apiKey: key('aki_new', { secretKey: 'sk_live_newsecret000000000001' }) }),
  [`DELETE /v1/workspaces/${WS}/api-keys/aki_old`]: () => ({ apiKey: key('aki_old'), isDeleted: true }),
  [`DELETE /v1/workspaces/${WS}/api-keys/aki_new`]: () => ({ apiKey: key('aki_new'), isDeleted: true }),
});

const fail = (kind: 'authentication' | 'connection' | 'rejected', message: string) => () => {
  throw new MailroomError(kind, message, { requestId: 'req_x' });
};

function deps(handlers: Record<string, Handler>, extra: Partial<RotateDeps> = {}) {
  const fake = fakeTransport(handlers);
  const checked: string[] = [];
  const d: RotateDeps = {
    transport: fake.transport,
    workspaceId: WS,
    checkWith: async (secret) => {
      checked.push(secret);
      return { status: 'SUCCEED', displayName: 'deploy', role: 'EDITOR' };
    },
    ...extra,
  };
  return { d, calls: fake.calls, checked };
}

async function caught(p: Promise<unknown>): Promise<MailroomError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MailroomError);
  return err as MailroomError;
}

describe('rotateKey', () => {
  it('completes when the old key\'s delete lost its answer and the retry finds the key gone', async () => {
    const { ApiError } = await import('../../../src/transport/http-errors.js');
    const { d } = deps({
      ...base(),
      [`DELETE /v1/workspaces/${WS}/api-keys/aki_old`]: (req) => {
        req.onRetry?.({ attempt: 1, delayMs: 0, reason: 'connection lost' });
        throw new ApiError({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'API key aki_old not found' }, requestId: 'req_2' });
      },
    });
    const out = await rotateKey(d, 'aki_old');
    expect(out.newKey.id).toBe('aki_new');
  });

  it('creates the same name and role, checks the NEW secret, saves, then deletes the old key, in that order', async () => {
    const saved: string[] = [];
    const { d, calls, checked } = deps(base(), { save: async (s) => void saved.push(s) });
    const out = await rotateKey(d, 'aki_old');
    expect(out.oldKey.id).toBe('aki_old');
    expect(out.newKey.id).toBe('aki_new');
    expect(checked).toEqual(['sk_live_newsecret000000000001']);
    expect(saved).toEqual(['sk_live_newsecret000000000001']);
    expect(calls).toEqual([
      `GET /v1/workspaces/${WS}/api-keys`,
      `POST /v1/workspaces/${WS}/api-keys {"displayName":"deploy","role":"EDITOR"}`,
      `DELETE /v1/workspaces/${WS}/api-keys/aki_old`,
    ]);
  });

  it('an unknown key: exit 4, nothing created', async () => {
    const { d, calls } = deps(base());
    const err = await caught(rotateKey(d, 'aki_missing'));
    expect(err.kind).toBe('rejected');
    expect(err.message).toBe(`rotate: no key aki_missing in workspace ${WS}`);
    expect(err.hints).toEqual(['nothing was changed']);
    expect(calls).toHaveLength(1);
  });

  it('create fails: the failure kind is kept and nothing else is touched', async () => {
    const { d, calls } = deps({ ...base(), [`POST /v1/workspaces/${WS}/api-keys`]: fail('authentication', 'API 403 Forbidden: lacks permissions') });
    const err = await caught(rotateKey(d, 'aki_old'));
    expect(err.kind).toBe('authentication');
    expect(err.message).toBe('rotate: could not create the replacement key: API 403 Forbidden: lacks permissions');
    expect(err.hints).toEqual(['nothing was changed: aki_old still works']);
    expect(err.requestId).toBe('req_x');
    expect(calls.some((c) => c.startsWith('DELETE'))).toBe(false);
  });

  it('create without an answer (network): the old key still works, and a replacement may exist', async () => {
    const { d, calls } = deps({ ...base(), [`POST /v1/workspaces/${WS}/api-keys`]: fail('connection', 'timed out after 30000 ms') });
    const err = await caught(rotateKey(d, 'aki_old'));
    expect(err.kind).toBe('connection');
    expect(err.hints).toEqual(['aki_old still works', 'a replacement may have been created without its answer arriving: look for a second "deploy" in `mailroom keys list` and delete it']);
    expect(calls.some((c) => c.startsWith('DELETE'))).toBe(false);
  });

  it('check of the new key fails: the new key is deleted, the old one is never touched', async () => {
    const { d, calls } = deps(base(), { checkWith: fail('authentication', 'API 401 Unauthorized: Invalid API key') as never });
    const err = await caught(rotateKey(d, 'aki_old'));
    expect(err.kind).toBe('authentication');
    expect(err.message).toBe('rotate: the new key aki_new failed its check: API 401 Unauthorized: Invalid API key');
    expect(err.hints).toEqual(['deleted the new key aki_new again', 'the old key aki_old is unchanged and still works']);
    expect(calls.filter((c) => c.startsWith('DELETE'))).toEqual([`DELETE /v1/workspaces/${WS}/api-keys/aki_new`]);
  });

  it('check fails AND the clean-up fails: says how to remove the stray key', async () => {
    const { d } = deps(
      { ...base(), [`DELETE /v1/workspaces/${WS}/api-keys/aki_new`]: fail('connection', 'could not reach the API') },
      { checkWith: fail('connection', 'no answer within 30000 ms') as never },
    );
    const err = await caught(rotateKey(d, 'aki_old'));
    expect(err.kind).toBe('connection');
    expect(err.hints).toEqual([
      'could not delete the new key aki_new (could not reach the API): run `mailroom keys delete aki_new --yes`',
      'the old key aki_old is unchanged and still works',
    ]);
  });

  it('saving to the profile fails: the new key is deleted, the old key kept', async () => {
    const { d, calls } = deps(base(), { save: async () => Promise.reject(new Error('EACCES: permission denied')) });
    const err = await caught(rotateKey(d, 'aki_old'));
    expect(err.kind).toBe('unexpected');
    expect(err.message).toBe('rotate: could not save the new key: EACCES: permission denied');
    expect(calls.filter((c) => c.startsWith('DELETE'))).toEqual([`DELETE /v1/workspaces/${WS}/api-keys/aki_new`]);
  });

  it('a create answer without the full secret cannot be verified: the new key is removed', async () => {
    const { d, checked } = deps({ ...base(), [`POST /v1/workspaces/${WS}/api-keys`]: () => ({ apiKey: key('aki_new', { secretKey: 'sk_live_…0001' }) }) });
    const err = await caught(rotateKey(d, 'aki_old'));
    expect(err.message).toBe('rotate: the API returned no full secret for the new key aki_new');
    expect(err.hints[0]).toBe('deleted the new key aki_new again');
    expect(checked).toEqual([]);
  });

  it('deleting the old key fails: RotateIncompleteError carries the live new key', async () => {
    const { d } = deps({ ...base(), [`DELETE /v1/workspaces/${WS}/api-keys/aki_old`]: fail('connection', 'API 503 Service Unavailable') });
    const err = await caught(rotateKey(d, 'aki_old'));
    expect(err).toBeInstanceOf(RotateIncompleteError);
    expect((err as RotateIncompleteError).newKey.secretKey).toBe('sk_live_newsecret000000000001');
    expect(err.kind).toBe('connection');
    expect(err.message).toBe('rotate: the new key aki_new works, but the old key aki_old could not be deleted: API 503 Service Unavailable');
  });
});

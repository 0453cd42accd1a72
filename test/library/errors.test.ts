import { describe, expect, it } from 'vitest';
import {
  AbortedError,
  ApiError,
  AuthenticationError,
  ConnectionError,
  Mailroom,
  MailroomError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../../src/library/index.js';

describe('the library\'s errors: domain names and kinds, no exit codes', () => {
  it('new ApiError({ status: 404 }) is named ApiError, of kind "rejected", and has no exitCode', () => {
    const err = new ApiError({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'no such webhook' } });
    expect(err.name).toBe('ApiError');
    expect(String(err)).toBe('ApiError: API 404 Not Found: no such webhook');
    expect(err.kind).toBe('rejected');
    expect(err).toBeInstanceOf(MailroomError);
    expect('exitCode' in err).toBe(false);
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({ name: 'ApiError', kind: 'rejected', message: 'API 404 Not Found: no such webhook', status: 404 });
  });

  it.each([
    [401, {}, AuthenticationError, 'authentication'],
    [403, { message: 'this key lacks the permission api_keys:write' }, PermissionError, 'permission'],
    [403, { message: 'monthly sending limit reached' }, RateLimitError, 'sending-limit'],
    [429, {}, RateLimitError, 'rate-limit'],
    [503, {}, ServerError, 'server'],
  ] as const)('ApiError.from a %i answer: %s', (status, body, Class, kind) => {
    const err = ApiError.from({ status, body: { statusCode: status, ...body } });
    expect(err).toBeInstanceOf(Class);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.name).toBe(Class.name);
    expect(err.kind).toBe(kind);
    expect('exitCode' in err).toBe(false);
  });

  it('the transport\'s errors and validation errors name themselves', () => {
    const cases: Array<[MailroomError, string, string]> = [
      [new ConnectionError('http://x', 'ECONNREFUSED', new Error('refused')), 'ConnectionError', 'connection'],
      [new TimeoutError('http://x', 100), 'TimeoutError', 'timeout'],
      [new AbortedError(), 'AbortedError', 'aborted'],
      [new ValidationError('bad'), 'ValidationError', 'validation'],
    ];
    for (const [err, name, kind] of cases) {
      expect([err.name, err.kind, String(err).split(':')[0], 'exitCode' in err]).toEqual([name, kind, name, false]);
    }
  });

  it('bad input found by the shared parsers is a real ValidationError, named so', async () => {
    const mailroom = new Mailroom({ apiKey: 'sk_test_errorsnamesnames', baseUrl: 'http://127.0.0.1:9', env: {} });
    const err = (await mailroom.emails.send({ from: 'ops@example.com', to: 'not an address', subject: 'Hi', html: 'x' }).catch((e: unknown) => e)) as Error;
    expect(err.constructor).toBe(ValidationError);
    expect(err.name).toBe('ValidationError');
    expect((err as ValidationError).kind).toBe('validation');
    const badOption = (() => {
      try {
        return new Mailroom({ apiKey: 'sk_test_x', baseUrl: 'no scheme here', env: {} });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(badOption.constructor).toBe(ValidationError);
  });
});

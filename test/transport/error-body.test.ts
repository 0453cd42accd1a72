import { describe, expect, it } from 'vitest';
import { ApiError, readErrorBody } from '../../src/transport/http-errors.js';
import { exitCodeOf } from '../../src/exit-codes.js';

describe('error bodies with extra or missing fields', () => {
  it.each([
    ['error: { message }', 400, { error: { code: 'invalid_payload', message: 'variables is required' } }, 'API 400 Bad Request: variables is required', 4],
    ['errors: [{ message } | string]', 409, { statusCode: 409, errors: [{ message: 'duplicate' }, 'taken'] }, 'API 409 Conflict: duplicate; taken', 4],
    ['message as an object', 422, { statusCode: 422, error: 'Unprocessable Entity', message: { field: 'events' } }, 'API 422 Unprocessable Entity: {"field":"events"}', 4],
    ['a multi-line text page', 502, '<html>\n<body>\n  Bad gateway\n</body></html>', 'API 502 Bad Gateway: <html> <body> Bad gateway </body></html>', 6],
    ['the limit inside error: { message }', 403, { error: { message: 'Monthly sending limit reached' } }, 'API 403 Forbidden: Monthly sending limit reached', 5],
    ['no fields at all', 401, {}, 'API 401 Unauthorized', 3],
  ])('%s: one line, the right exit code and the request id', (_name, status, body, message, code) => {
    const err = new ApiError({ status, body, requestId: 'req_9' });
    expect(err.message).toBe(message);
    expect(err.message).not.toContain('\n');
    expect(exitCodeOf(err)).toBe(code);
    expect(err.requestId).toBe('req_9');
  });

  it('clips a long message', () => {
    expect(readErrorBody({ message: 'x'.repeat(800) }).message).toBe(`${'x'.repeat(500)}…`);
  });

  it('takes one allowed sender given as a string instead of a list', () => {
    const err = new ApiError({ status: 400, body: { statusCode: 400, error: 'Bad Request', message: 'Sender not verified', allowedEmails: 'me@ok.test', allowedDomains: null } });
    expect(err.hints).toEqual(['allowed senders: me@ok.test']);
  });
});

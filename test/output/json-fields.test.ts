import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/context.js';
import { MailroomError, ValidationError } from '../../src/errors.js';
import { EXIT } from '../../src/exit-codes.js';
import { printJson } from '../../src/output/print.js';
import { takeJsonFields } from '../../src/output/fields.js';
import { report } from '../../src/report-error.js';
import { JSON_FIELD_WORDS } from '../../src/commands/shared/json-fields.js';
import { ApiError } from '../../src/transport/http-errors.js';

function capture(jsonFields?: string[]): { ctx: Context; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) => Object.assign(new PassThrough(), { write: (s: string) => (append(s), true) });
  const ctx: Context = {
    io: { out: sink((s) => (out += s)), err: sink((s) => (err += s)), in: new PassThrough(), isStdoutTTY: false, isStderrTTY: false, isStdinTTY: false, color: false },
    env: {},
    cwd: '/',
    signal: new AbortController().signal,
    ...(jsonFields ? { jsonFields } : {}),
  };
  return { ctx, out: () => out, err: () => err };
}

const key = { id: 'aki_1', displayName: 'ci', role: 'API_USER', status: 'ACTIVE', secretKey: 'sk_live_…abcd' };

describe('--json <fields>', () => {
  it('keeps only the named fields of an object, in the order asked', () => {
    const c = capture(['displayName', 'id']);
    printJson(c.ctx, key);
    expect(JSON.parse(c.out())).toEqual({ displayName: 'ci', id: 'aki_1' });
    expect(Object.keys(JSON.parse(c.out()))).toEqual(['displayName', 'id']);
  });

  it('of each item of a list (what stands beside the items kept)', () => {
    const page = capture(['id', 'role']);
    printJson(page.ctx, { items: [key], hasMore: true, startAt: '2026-11-23T10:00:00.000Z' });
    expect(JSON.parse(page.out())).toEqual({ items: [{ id: 'aki_1', role: 'API_USER' }], hasMore: true, startAt: '2026-11-23T10:00:00.000Z' });
  });

  it('`--json` alone prints everything', () => {
    const c = capture();
    printJson(c.ctx, key);
    expect(JSON.parse(c.out())).toEqual(key);
  });

  it.each([
    [['--json', 'id,displayName', 'keys', 'list'], ['--json', 'keys', 'list'], ['id', 'displayName']],
    [['keys', 'list', '--json=id'], ['keys', 'list', '--json'], ['id']],
    [['keys', 'list', '--json', 'id'], ['keys', 'list', '--json'], ['id']],
    [['--json', 'keys', 'list'], ['--json', 'keys', 'list'], undefined],
    [['webhooks', 'get', '--json', 'wh_123'], ['webhooks', 'get', '--json', 'wh_123'], undefined],
    [['batch', '--json', 'emails.ndjson'], ['batch', '--json', 'emails.ndjson'], undefined],
    [['config', 'get', '--json', 'workspace'], ['config', 'get', '--json', 'workspace'], undefined],
    [['api', 'GET', '/v1/x', '--', '--json', 'id'], ['api', 'GET', '/v1/x', '--', '--json', 'id'], undefined],
  ])('%j reads as %j with fields %j', (args, rest, fields) => {
    expect(takeJsonFields(args, JSON_FIELD_WORDS)).toMatchObject({ args: rest, fields });
  });

  it('`--json=` with no field is a usage error', () => {
    expect(() => takeJsonFields(['check', '--json='], JSON_FIELD_WORDS)).toThrow(MailroomError);
  });

  it('`--json ""` (an unset shell variable) is the same mistake, not an operand', () => {
    expect(() => takeJsonFields(['keys', 'list', '--json', ''], JSON_FIELD_WORDS)).toThrow('--json: the field list is empty: give field names (--json id,displayName), or --json alone for every field');
  });
});

describe('errors under --json', () => {
  it('also go to stdout as one JSON object, beside the stderr line', () => {
    const c = capture();
    const err = new ApiError({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'No such webhook' }, requestId: 'req_123' });
    const code = report(err, c.ctx, { verbose: false, json: true });
    expect(code).toBe(EXIT.rejected);
    expect(c.err()).toMatch(/^mailroom: .*No such webhook/);
    expect(JSON.parse(c.out())).toEqual({
      error: { kind: 'rejected', message: err.message, statusCode: 404, requestId: 'req_123', exitCode: 4, ...(err.hints.length > 0 ? { hints: err.hints } : {}) },
    });
  });

  it('a usage error and an unexpected one too; without --json stdout stays empty', () => {
    const usage = capture();
    expect(report(new ValidationError('bad flag'), usage.ctx, { verbose: false, json: true })).toBe(2);
    expect(JSON.parse(usage.out())).toEqual({ error: { kind: 'usage', message: 'bad flag', exitCode: 2 } });
    const boom = capture();
    expect(report(new Error('boom'), boom.ctx, { verbose: false, json: true })).toBe(1);
    expect(JSON.parse(boom.out())).toEqual({ error: { kind: 'unexpected', message: 'boom', exitCode: 1 } });
    const plain = capture();
    report(new ValidationError('bad flag'), plain.ctx, { verbose: false, json: false });
    expect(plain.out()).toBe('');
  });
});

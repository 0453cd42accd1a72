import { describe, expect, it } from 'vitest';
import { canonicalSendAt, parseSendAt } from '../../src/input/time.js';

const now = new Date('2026-03-01T12:00:00.000Z');

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as { kind?: string }).kind).toBe('validation');
    return (err as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('parseSendAt', () => {
  it('turns relative times into UTC ISO strings from now', () => {
    expect(parseSendAt('+30m', now)).toBe('2026-03-01T12:30:00.000Z');
    expect(parseSendAt('+2h', now)).toBe('2026-03-01T14:00:00.000Z');
    expect(parseSendAt('+3d', now)).toBe('2026-03-04T12:00:00.000Z');
    expect(parseSendAt(' +90d ', now)).toBe('2026-05-30T12:00:00.000Z');
  });

  it('accepts ISO 8601 with Z or an offset and normalises to UTC', () => {
    expect(parseSendAt('2026-03-02T09:00:00Z', now)).toBe('2026-03-02T09:00:00.000Z');
    expect(parseSendAt('2026-03-02T09:00:00+02:00', now)).toBe('2026-03-02T07:00:00.000Z');
    expect(parseSendAt('2026-03-02T09:00+0100', now)).toBe('2026-03-02T08:00:00.000Z');
    expect(parseSendAt('2026-03-02T09:00:00.250Z', now)).toBe('2026-03-02T09:00:00.250Z');
  });

  it('accepts every ISO 8601 zone form, with or without seconds, as the sandbox does', () => {
    expect(parseSendAt('2026-03-02T09:00Z', now)).toBe('2026-03-02T09:00:00.000Z');
    expect(parseSendAt('2026-03-02T09:00+01', now)).toBe('2026-03-02T08:00:00.000Z');
    expect(parseSendAt('2026-03-02T09:00:00-0130', now)).toBe('2026-03-02T10:30:00.000Z');
    expect(canonicalSendAt('2026-03-02T09:00+01')).toBe('2026-03-02T08:00:00.000Z');
    expect(canonicalSendAt('2026-03-02T09:00:00,5z')).toBe('2026-03-02T09:00:00.500Z');
  });

  it('says why a time without a zone or a date alone is refused', () => {
    expect(usage(() => parseSendAt('2026-03-02T09:00', now))).toBe('--send-at: "2026-03-02T09:00" needs a time zone (Z or +hh:mm)');
    expect(usage(() => parseSendAt('2026-03-02', now))).toBe('--send-at: "2026-03-02" needs a time of day and a time zone (2026-12-01T09:00:00Z)');
    expect(usage(() => parseSendAt('2026-02-30T09:00:00Z', now))).toBe('--send-at: "2026-02-30T09:00:00Z" is not a valid date and time');
  });

  it('rejects nonsense', () => {
    for (const bad of ['tomorrow', '+5w', '30m', '+-3d', '']) {
      expect(usage(() => parseSendAt(bad, now))).toMatch(/^--send-at: ".*" is not ISO 8601 with a time zone/);
    }
    expect(usage(() => parseSendAt('2026-02-30T25:00:00Z', now))).toBe('--send-at: "2026-02-30T25:00:00Z" is not a valid date and time');
  });

  it('rejects the past and now itself', () => {
    expect(usage(() => parseSendAt('2026-03-01T11:59:59Z', now))).toBe('--send-at: 2026-03-01T11:59:59.000Z is in the past');
    expect(usage(() => parseSendAt('+0m', now))).toBe('--send-at: 2026-03-01T12:00:00.000Z is in the past');
  });

  it('rejects more than 90 days ahead, to the millisecond', () => {
    expect(parseSendAt('2026-05-30T12:00:00Z', now)).toBe('2026-05-30T12:00:00.000Z');
    expect(usage(() => parseSendAt('2026-05-30T12:00:00.001Z', now))).toBe(
      '--send-at: 2026-05-30T12:00:00.001Z is more than 90 days ahead (latest 2026-05-30T12:00:00.000Z)',
    );
    expect(usage(() => parseSendAt('+91d', now))).toMatch(/more than 90 days ahead/);
  });
});

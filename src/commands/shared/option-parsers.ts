import { InvalidArgumentError } from 'commander';

/** Commander's parser for an integer option in [min, max]; a bad value is a usage error naming the option. */
export function parseIntegerOption(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be a whole number`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}`);
    return n;
  };
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** A duration: whole milliseconds (`500`), or a number with a unit (`500ms`, `10s`, `1.5m`); answers milliseconds. */
export function parseDurationOption(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
    if (!m) throw new InvalidArgumentError(`${name} must be a duration: whole milliseconds, or a number with ms, s or m (10s)`);
    const n = Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max} ms`);
    return n;
  };
}

import { InvalidArgumentError } from 'commander';
import { usageError } from '../errors.js';

/** Edits (insert, delete, substitute, swap two neighbours) between two words, case ignored. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The candidates a mistyped word most likely meant: the closest ones, if within a third of the
 * word's length (Commander's own measure for commands and options), so nonsense suggests nothing.
 */
export function closest(word: string, candidates: readonly string[]): string[] {
  let best = Infinity;
  let found: string[] = [];
  for (const c of candidates) {
    const dist = distance(word, c);
    if (dist > Math.max(1, Math.floor(Math.max(word.length, c.length) / 3))) continue;
    if (dist < best) [best, found] = [dist, [c]];
    else if (dist === best) found.push(c);
  }
  return found;
}

/** ` (did you mean X?)`, or nothing when no candidate is close: appended to an "unknown ..." message. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  return near.length === 0 ? '' : ` (did you mean ${near.join(' or ')}?)`;
}

/**
 * One value of a fixed set, matched whatever its case (`viewer`, `Viewer`, `VIEWER`) and returned
 * in the set's own spelling, which is what goes on the wire. Every enum-valued flag and argument
 * goes through this, so case never matters anywhere. `undefined` when nothing matches.
 */
export function matchChoice<T extends string>(value: string, choices: readonly T[]): T | undefined {
  const v = value.trim().toLowerCase();
  return choices.find((c) => c.toLowerCase() === v);
}

/** The usage error for a value that is not one of `choices`: what was given, the valid ones, a guess. */
export function notAChoice(what: string, value: string, choices: readonly string[]): Error {
  return usageError(`${what} "${value}" is not one of ${choices.join(', ')}${didYouMean(value.trim(), choices)}`);
}

/** matchChoice, or the usage error. */
export function parseChoice<T extends string>(what: string, value: string, choices: readonly T[]): T {
  const found = matchChoice(value, choices);
  if (found === undefined) throw notAChoice(what, value, choices);
  return found;
}

/**
 * A Commander argParser for an enum flag or argument, after `.choices()` (kept for help and
 * completion; its own check is case sensitive, and this parser replaces it):
 * `new Option('--format <f>').choices(FORMATS).argParser(choiceParser('--format', FORMATS))`.
 * Commander prints the message as its one-line usage error (exit 2).
 */
export function choiceParser<T extends string>(what: string, choices: readonly T[]): (value: string) => T {
  return (value) => {
    const found = matchChoice(value, choices);
    if (found === undefined) throw new InvalidArgumentError(`${what} must be one of ${choices.join(', ')}${didYouMean(value.trim(), choices)}`);
    return found;
  };
}

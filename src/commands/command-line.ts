import type { Command } from 'commander';

/** A word as a POSIX shell reads it back unchanged: bare when safe, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[\w./@:+,=%-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Options whose value is a secret: a printed command line shows a placeholder instead. */
const SECRET_OPTIONS: Record<string, string> = { '--api-key': '<your key>', '--token': '<your token>' };

export interface RerunChanges {
  /** Long option → the value the new command line gives it (replacing or appending it). */
  set?: Record<string, string>;
}

/**
 * The command line the user ran (`cmd`'s root holds it), as a copy-pasteable `mailroom …` that does
 * the same again, with `set` options replaced or added at the end. Secret values never appear.
 */
export function rerunCommand(cmd: Command, changes: RerunChanges = {}): string {
  let root = cmd;
  while (root.parent) root = root.parent;
  // Commander keeps the argv it parsed on the root (untyped, but there since its first versions).
  const args = ((root as unknown as { rawArgs?: string[] }).rawArgs ?? []).slice(2);
  const takesValue = new Map<string, string>();
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const o of c.options) {
      if (o.isBoolean() || o.negate) continue;
      if (o.long) takesValue.set(o.long, o.long);
      if (o.short) takesValue.set(o.short, o.long ?? o.short);
    }
  }
  const set = new Map(Object.entries(changes.set ?? {}));
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (arg === '--') {
      words.push(...args.slice(i).map(shellQuote));
      break;
    }
    const long = takesValue.get(flag);
    if (long === undefined) {
      words.push(shellQuote(arg));
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) break;
    const replaced = set.get(long);
    set.delete(long);
    words.push(long, shellQuote(SECRET_OPTIONS[long] ?? replaced ?? value));
  }
  for (const [long, value] of set) words.push(long, shellQuote(value));
  return ['mailroom', ...words].join(' ');
}

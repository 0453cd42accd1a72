import type { Command } from 'commander';

/** A word as a POSIX shell reads it back unchanged: bare when safe, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[\w./@:+,=%-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Options whose value is a secret: a printed command line shows a placeholder instead. */
const SECRET_OPTIONS: Record<string, string> = { '--api-key': '<your key>', '--token': '<your token>' };

/**
 * The command the user ran, rebuilt from what Commander parsed (the command path, its operands,
 * then every option given on the command line, the command's own before the global ones), as a
 * copy-pasteable `mailroom …` that does the same again. `set` replaces or adds option values.
 * Secret values never appear; options that came from the environment are left to it.
 */
export function rerunCommand(cmd: Command, set: Record<string, string> = {}): string {
  const chain: Command[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) chain.push(c);
  const words = ['mailroom', ...chain.slice(0, -1).reverse().map((c) => c.name()), ...cmd.args.map(shellQuote)];
  const pending = new Map(Object.entries(set));
  for (const c of chain) {
    for (const option of c.options) {
      const key = option.attributeName();
      const long = option.long;
      if (!long || c.getOptionValueSource(key) !== 'cli') continue;
      const value: unknown = c.getOptionValue(key);
      if (option.isBoolean() || option.negate) {
        if (value === !option.negate) words.push(long);
        continue;
      }
      const replaced = pending.get(long);
      pending.delete(long);
      for (const v of Array.isArray(value) ? value : [value]) words.push(long, shellQuote(SECRET_OPTIONS[long] ?? replaced ?? String(v)));
    }
  }
  for (const [long, value] of pending) words.push(long, shellQuote(value));
  return words.join(' ');
}

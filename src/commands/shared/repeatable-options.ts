import type { Command } from 'commander';

/**
 * The argument parser of an option that may be given many times (`--var a=1 --var b=2`): it
 * collects every value. Every other option takes one value, and a second one is refused (see
 * refuseRepeatedOptions) rather than silently replacing the first, as Commander would.
 */
export function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Why a second value would be wrong, where more than "give it once" helps. */
const WHY: Record<string, string> = {
  '--to': 'an email has one recipient: to send to many, use `mailroom batch`',
};

/**
 * Makes every value-taking option of `cmd` that is not `repeatable` refuse a second occurrence
 * with a usage error (exit 2) naming it. The value is never echoed: it may be a key or a token.
 */
export function refuseRepeatedOptions(cmd: Command): void {
  for (const option of cmd.options) {
    if (option.isBoolean() || option.negate || option.variadic || option.parseArg === repeatable) continue;
    const parse = option.parseArg;
    const key = option.attributeName();
    const flag = option.long ?? option.short ?? option.flags;
    option.argParser((value: string, previous: unknown) => {
      if (cmd.getOptionValueSource(key) === 'cli') {
        const why = WHY[flag];
        cmd.error(`error: ${flag} was given more than once; give it once${why ? ` (${why})` : ''}`, { exitCode: 2, code: 'mailroom.repeatedOption' });
      }
      return parse ? parse(value, previous) : value;
    });
  }
}

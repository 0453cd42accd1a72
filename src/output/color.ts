import type { ChalkInstance } from 'chalk';

/**
 * chalk built from io.color (which already weighs the terminal, --no-color, NO_COLOR and
 * FORCE_COLOR), never from chalk's own detection: stdout may be piped while stderr is a terminal.
 */
export async function palette(color: boolean): Promise<ChalkInstance> {
  const { Chalk } = await import('chalk');
  return new Chalk({ level: color ? 1 : 0 });
}

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { JqFilter } from '../context.js';
import { usageError } from '../errors.js';

/**
 * jq's WebAssembly: dist/jq.wasm, which the build copies beside the bundle (this module is then a
 * chunk in dist/chunks/), or, run from the sources (tests), the jq-wasm package's own.
 */
function wasmFile(): string {
  const built = fileURLToPath(new URL('../jq.wasm', import.meta.url));
  return existsSync(built) ? built : createRequire(import.meta.url).resolve('jq-wasm/jq.wasm');
}

/** The last line jq prints for mailroom: what comes before it is the expression's output, whole. */
const END = '\u0000mailroom-jq-end\u0000';

/** jq's exit status for an expression that does not compile. */
const COMPILE_ERROR = 3;

/**
 * `--jq <expression>`: jq itself (jq-wasm, jq 1.8 compiled to WebAssembly, bundled into dist/ and
 * loaded only here, when the flag is given). The expression is compiled before the command runs, so
 * a mistake in it costs no request: jq has no compile-only mode, so it is compiled inside a branch
 * that never runs (`if false then (EXPR) else empty end`, on its own lines so that a trailing
 * comment ends before the wrapper does); only when that fails is the expression compiled alone, for
 * jq's message about the user's own text (it does not run: it did not compile).
 */
export async function compileJq(expression: string): Promise<JqFilter> {
  const { loadJq } = await import('jq-wasm');
  const jq = await loadJq({ wasmBinary: readFileSync(wasmFile()) });
  const check = jq.raw(null, `if false then (\n${expression}\n) else empty end`, ['-n']);
  if (check.exitCode === COMPILE_ERROR) {
    const alone = jq.raw(null, expression, ['-n']);
    if (alone.exitCode === COMPILE_ERROR) throw compileError(alone.stderr);
  }
  // jq-wasm trims the end of what jq printed (an empty string's line, a string's own newlines): a
  // last output of ours marks the real end.
  const marked = `(\n${expression}\n), ${JSON.stringify(END)}`;
  return {
    run(value, pretty) {
      const r = jq.raw(JSON.stringify(value), marked, pretty ? ['-r'] : ['-r', '-c']);
      if (r.exitCode !== 0 || !r.stdout.endsWith(END)) return { error: jqMessage(r.stderr.split('\n')[0] ?? '') || `jq exited ${r.exitCode}` };
      return { text: r.stdout.slice(0, -END.length) };
    },
  };
}

/** jq's compile errors: the first as the message, the lines that point into the expression as hints. */
function compileError(stderr: string) {
  const lines = stderr.split('\n').filter((l) => l !== '' && !/^jq: \d+ compile errors?$/.test(l));
  const errors = lines.filter((l) => l.startsWith('jq: error'));
  const pointer = lines.filter((l) => !l.startsWith('jq: error')).slice(0, 2);
  const more = errors.length > 1 ? [`and ${errors.length - 1} more: ${errors.slice(1).map(jqMessage).join('; ')}`] : [];
  return usageError(`--jq: ${jqMessage(errors[0] ?? stderr)}`, [...pointer, ...more]);
}

/** `jq: error (at /dev/stdin:0): Cannot iterate over null` as `Cannot iterate over null`. */
const jqMessage = (line: string): string => line.trim().replace(/^jq: error(?: \(at [^)]*\))?: /, '').replace(/:$/, '');

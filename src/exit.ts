import type { Writable } from 'node:stream';
import { processOutputs, type OutputName } from './context.js';
import { EXIT } from './exit-codes.js';
import { fsReason } from './files.js';

/** What the ending needs from the process; a test hands in its own. */
export interface ExitDeps {
  exit: (code: number) => void;
  outputs: () => { streams: Writable[]; failure: { stream: OutputName; err: unknown } | undefined };
  /** Where the one line about a failed stdout goes (stderr). */
  say: (line: string) => void;
}

/**
 * The one place the CLI's process ends (src/main.ts calls it; bin/mailroom.js and src/complete.ts
 * never end the process themselves: Node ends them once their writes are done). A pipe holds
 * 64 KiB; what does not fit waits in the process until the reader takes it, and `process.exit`
 * would drop it. So the code is returned only once stdout and stderr have handed everything to
 * their readers: a slow reader is waited for, a closed one (`| head -1`) is not, and a file or a
 * terminal is written at once. A stdout that could not be written (`> /dev/full`) turns a success
 * into exit 9 (storage) with one line saying so.
 */
export function exitProcess(deps: ExitDeps = PROCESS) {
  let ending = false;
  return {
    /** Ends with `code` once stdout and stderr have drained; later calls (a second Ctrl-C meanwhile) change nothing. */
    end(code: number): void {
      if (ending) return;
      ending = true;
      void drained(deps.outputs().streams).then(() => {
        const { failure } = deps.outputs();
        // stdout is the command's result; stderr's notes lost on a full disk do not fail it.
        if (failure?.stream === 'stdout' && code === EXIT.ok) {
          deps.say(`mailroom: cannot write to stdout: ${fsReason(failure.err, 'write')}`);
          code = EXIT.storage;
        }
        deps.exit(code);
      });
    },
    /** Ends at once, whatever is still waiting for a reader: the user asked for it (a third Ctrl-C). */
    now(code: number): void {
      deps.exit(code);
    },
  };
}

const PROCESS: ExitDeps = {
  exit: (code) => process.exit(code),
  outputs: processOutputs,
  say: (line) => process.stderr.write(`${line}\n`),
};

/** Resolves once every write made to these streams so far has reached the other side, or cannot. */
export function drained(streams: readonly Writable[]): Promise<void> {
  return Promise.all(streams.map(drain)).then(() => undefined);
}

function drain(stream: Writable): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  // Writes complete in order: the callback of an empty write comes after every earlier one's.
  return new Promise((resolve) => stream.write('', () => resolve()));
}

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { exitProcess, type ExitDeps } from '../src/exit.js';
import type { OutputName } from '../src/context.js';

/** A stream whose reader takes each chunk only when the test says so (a pipe to `sleep 2; wc -c`). */
function slowReader() {
  const waiting: (() => void)[] = [];
  let received = '';
  const stream = new Writable({
    highWaterMark: 4,
    write(chunk: Buffer, _enc, done) {
      waiting.push(() => {
        received += chunk.toString();
        done();
      });
    },
  });
  return {
    stream,
    received: () => received,
    /** The reader takes everything written so far, chunk by chunk, as it arrives. */
    async readAll() {
      while (waiting.length) {
        waiting.shift()!();
        await new Promise((r) => setImmediate(r));
      }
    },
  };
}

function world(streams: Writable[], failure?: { stream: OutputName; err: unknown }) {
  const exits: number[] = [];
  const said: string[] = [];
  const deps: ExitDeps = { exit: (code) => exits.push(code), outputs: () => ({ streams, failure }), say: (line) => said.push(line) };
  return { exits, said, ending: exitProcess(deps) };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('the process ends only once stdout and stderr have drained', () => {
  it('waits for a slow reader of stdout and of stderr before returning the code', async () => {
    const out = slowReader();
    const err = slowReader();
    out.stream.write('a'.repeat(100));
    out.stream.write('b'.repeat(100));
    err.stream.write('note\n');
    const { exits, ending } = world([out.stream, err.stream]);
    ending.end(7);
    await tick();
    expect(exits).toEqual([]);
    await out.readAll();
    await tick();
    expect(exits).toEqual([]);
    await err.readAll();
    await tick();
    expect(exits).toEqual([7]);
    expect(out.received()).toBe('a'.repeat(100) + 'b'.repeat(100));
  });

  it('ends at once when nothing waits: no stream opened, everything written, or a reader gone', async () => {
    const done = new Writable({ write: (_c, _e, cb) => cb() });
    done.write('x');
    const gone = slowReader();
    gone.stream.write('lost');
    gone.stream.destroy();
    const { exits, ending } = world([done, gone.stream]);
    ending.end(0);
    await tick();
    expect(exits).toEqual([0]);
  });

  it('a stdout that could not be written turns success into exit 9 with one line; a failed command keeps its code', async () => {
    const full = { stream: 'stdout' as const, err: Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }) };
    const ok = world([], full);
    ok.ending.end(0);
    await tick();
    expect(ok.exits).toEqual([9]);
    expect(ok.said).toEqual(['mailroom: cannot write to stdout: no space left on device']);
    const failed = world([], full);
    failed.ending.end(4);
    await tick();
    expect(failed.exits).toEqual([4]);
  });

  it('a stderr that could not be written does not fail the command', async () => {
    const { exits, said, ending } = world([], { stream: 'stderr', err: Object.assign(new Error('x'), { code: 'ENOSPC' }) });
    ending.end(0);
    await tick();
    expect(exits).toEqual([0]);
    expect(said).toEqual([]);
  });

  it('ends once: a second end (Ctrl-C while draining) changes nothing; now() does not wait', async () => {
    const out = slowReader();
    out.stream.write('x');
    const { exits, ending } = world([out.stream]);
    ending.end(0);
    ending.end(130);
    await tick();
    expect(exits).toEqual([]);
    ending.now(130);
    expect(exits).toEqual([130]);
  });
});

/**
 * An input's items one at a time (an async generator, as every reader gives them), or for a reader
 * that reads many at once, `groups()`: the items of each piece of input read, together. An async
 * step per item costs a batch of 20,000 entries more than parsing them does, so the batch engine
 * takes the groups when there are (batch/chunks.ts). Either is read, not both.
 */
export type Grouped<T> = AsyncGenerator<T> & { groups?: () => AsyncGenerator<T[]> };

/** A reader of text a piece at a time: what each piece completes goes into `out`; `finish` adds what the end completes. */
export interface PieceReader<T> {
  take(piece: string, out: T[]): void;
  finish(out: T[]): void;
}

/**
 * A reader's items, grouped by the piece of input that completed them. When the read fails (a
 * piece the reader refuses, the source's own error), the items it completed before come first,
 * as they would one by one, then the error as `located` words it.
 */
export function readInGroups<T>(pieces: AsyncIterable<string>, reader: PieceReader<T>, located: (err: unknown) => unknown): Grouped<T> {
  async function* groups(): AsyncGenerator<T[]> {
    let out: T[] = [];
    try {
      for await (const piece of pieces) {
        reader.take(piece, out);
        if (out.length > 0) {
          yield out;
          out = [];
        }
      }
      reader.finish(out);
      if (out.length > 0) yield out;
    } catch (err) {
      if (out.length > 0) {
        const before = out;
        out = [];
        yield before;
      }
      throw located(err);
    }
  }
  return inGroups(groups());
}

/** Items of groups, one at a time, that also offer the groups themselves. */
export function inGroups<T>(groups: AsyncGenerator<T[]>): Grouped<T> {
  async function* ones(): AsyncGenerator<T> {
    for await (const group of groups) yield* group;
  }
  return Object.assign(ones(), { groups: () => groups });
}

/** The groups of `items` when its reader makes them, else each item as a group of one. */
export function groupsOf<T>(items: AsyncIterable<T> & { groups?: () => AsyncGenerator<T[]> }): AsyncIterable<T[]> {
  if (items.groups) return items.groups();
  const it = items[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<T[]>> => {
        const r = await it.next();
        return r.done ? { done: true, value: undefined } : { done: false, value: [r.value] };
      },
      return: async (): Promise<IteratorResult<T[]>> => {
        await it.return?.();
        return { done: true, value: undefined };
      },
    }),
  };
}

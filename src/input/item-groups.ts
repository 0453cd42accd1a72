/**
 * An input's items one at a time (an async generator, as every reader gives them), or for a reader
 * that reads many at once, `groups()`: the items of each piece of input read, together. An async
 * step per item costs a batch of 20,000 entries more than parsing them does, so the batch engine
 * takes the groups when there are (batch/chunks.ts). Either is read, not both.
 */
export type Grouped<T> = AsyncGenerator<T> & { groups?: () => AsyncGenerator<T[]> };

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

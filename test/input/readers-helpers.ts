import type { InputItem } from '../../src/input/json-stream.js';

export async function* chunksOf(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

export async function collect(items: AsyncIterable<InputItem>): Promise<InputItem[]> {
  const out: InputItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

import { Writable } from 'node:stream';

/** A stdout that holds every write until `open()`, then takes them as a reader would; `peak`: most bytes ever waiting in it. */
export function slowReader() {
  const held: Array<() => void> = [];
  let reading = false;
  let text = '';
  const out = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, callback) {
      text += chunk.toString();
      if (reading) callback();
      else held.push(callback);
    },
  });
  let peak = 0;
  const write = out.write.bind(out) as (...a: unknown[]) => boolean;
  out.write = ((...a: unknown[]) => {
    const ok = write(...a);
    peak = Math.max(peak, out.writableLength);
    return ok;
  }) as typeof out.write;
  return {
    out,
    get peak() {
      return peak;
    },
    text: () => text,
    open() {
      reading = true;
      for (const callback of held.splice(0)) callback();
    },
  };
}

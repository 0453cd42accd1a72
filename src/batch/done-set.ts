// What a journal records as settled, by entry index: read back on resume, so those entries are skipped.

export const DONE_OK = 1;
export const DONE_FAILED = 2;

/**
 * Entry states by input index, a byte each (plus 4 bytes for an input hash when the journal has
 * them): memory stays small for millions of entries.
 */
export class DoneSet {
  private bytes = new Uint8Array(1024);
  private hashes: Uint32Array | undefined;
  count = 0;

  mark(index: number, state: number, hash?: number): void {
    if (index >= this.bytes.length) this.bytes = grow(this.bytes, index);
    if (this.bytes[index] === 0) this.count += 1;
    this.bytes[index] = state;
    if (hash !== undefined) {
      this.hashes ??= new Uint32Array(this.bytes.length);
      if (index >= this.hashes.length) this.hashes = grow(this.hashes, index);
      this.hashes[index] = hash;
    }
  }

  get(index: number): number {
    return index < this.bytes.length ? this.bytes[index]! : 0;
  }

  hash(index: number): number | undefined {
    return this.hashes && index < this.hashes.length && this.bytes[index] !== 0 ? this.hashes[index] : undefined;
  }
}

function grow<T extends Uint8Array | Uint32Array>(array: T, index: number): T {
  let size = array.length;
  while (size <= index) size *= 2;
  const grown = new (array.constructor as new (n: number) => T)(size);
  grown.set(array);
  return grown;
}

/**
 * FNV-1a of an entry's JSON text. Journals of stdin runs carry it per entry: stdin cannot be
 * fingerprinted up front, so a resume checks each skipped entry against it instead.
 */
export function inputHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

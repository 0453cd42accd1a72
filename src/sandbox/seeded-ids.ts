import { randomUUID } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '../schema/index.js';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
// An id's characters are written as bytes and read as one string: building it a character at a
// time made a chain of small strings, which cost as much as the rest of replaying an email.
const CHAR = Uint8Array.from(Array.from({ length: 256 }, (_, b) => ALPHABET.charCodeAt(b % 62)));
const HEX = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const scratch = Buffer.alloc(36);
const SEED = /^[0-9a-f]{32}$/;

/**
 * The ids of one request's emails, drawn from a seed of 128 random bits (xoshiro128**): the same
 * seed gives the same ids in the same order. `--data` journals a request with its seed, not its
 * ids (journal-lines.ts), and a restart draws them again. How ids come from a seed is part of the
 * journal's format: test/fixtures/sandbox-data-v3 holds it to what was written.
 */
export class SeededIds {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seed: string) {
    this.a = Number.parseInt(seed.slice(0, 8), 16) | 0;
    this.b = Number.parseInt(seed.slice(8, 16), 16) | 0;
    this.c = Number.parseInt(seed.slice(16, 24), 16) | 0;
    this.d = Number.parseInt(seed.slice(24, 32), 16) | 0;
    // The one state the generator cannot leave.
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  static isSeed(value: unknown): value is string {
    return typeof value === 'string' && SEED.test(value);
  }

  /** A new seed: 32 hex digits (a random UUID's, some bits fixed). */
  static fresh(): SeededIds {
    return new SeededIds(randomUUID().replaceAll('-', ''));
  }

  /** An id as newId makes them: the prefix and 20 base62 characters. */
  id(kind: IdKind): string {
    for (let i = 0; i < 20; i += 4) {
      const x = this.next();
      scratch[i] = CHAR[x & 255]!;
      scratch[i + 1] = CHAR[(x >>> 8) & 255]!;
      scratch[i + 2] = CHAR[(x >>> 16) & 255]!;
      scratch[i + 3] = CHAR[x >>> 24]!;
    }
    return ID_PREFIX[kind] + scratch.toString('latin1', 0, 20);
  }

  /** A version 4 UUID, as randomUUID makes them. */
  uuid(): string {
    let at = 0;
    for (let word = 0; word < 4; word++) {
      let x = this.next();
      // The version (4) and variant (10xx) bits, in the 7th and 9th bytes.
      if (word === 1) x = (x & ~0xf000) | 0x4000;
      if (word === 2) x = (x & 0x3fffffff) | 0x80000000;
      for (let shift = 28; shift >= 0; shift -= 4) {
        if (at === 8 || at === 13 || at === 18 || at === 23) scratch[at++] = 45;
        scratch[at++] = HEX[(x >>> shift) & 15]!;
      }
    }
    return scratch.toString('latin1', 0, 36);
  }

  private next(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

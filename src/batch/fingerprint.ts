import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/**
 * `sha256:<hex>` of a file's bytes, streamed. A resume checks it before sending anything: the
 * idempotency keys are tied to entry positions, so a changed input would pair old keys with new
 * emails and the API would silently answer with the old results.
 */
export async function fingerprintFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

import { mask } from '../output/mask.js';

/** Secret shapes of the service: API keys and webhook signing tokens. */
const SECRET_PATTERN = /\b(sk_(?:live|test)_|wht_)[A-Za-z0-9_-]{4,}/g;
/** JSON fields whose values are secrets whatever they look like. */
const SECRET_FIELD = /("(?:secretKey|token|apiKey|api_key|password|authorization)"\s*:\s*")((?:[^"\\]|\\.)*)(")/gi;

/**
 * Makes a log line safe to show: known secrets (the key in use, even a sandbox key of another shape)
 * and anything shaped like a key or token are masked to a recognisable tail.
 */
export function redact(text: string, known: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of known) {
    if (secret && secret.length >= 6) out = out.split(secret).join(mask(secret));
  }
  out = out.replace(SECRET_FIELD, (_m, open: string, value: string, close: string) => `${open}${value.includes('…') ? value : mask(value)}${close}`);
  return out.replace(SECRET_PATTERN, (value) => mask(value));
}

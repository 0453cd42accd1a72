/**
 * Sets `key` as an own, enumerable field, whatever its name. A plain assignment of "__proto__"
 * sets the object's prototype instead (or does nothing), so a key that JSON carries like any other
 * would vanish from what is sent, stored or printed.
 */
export function setOwn(target: object, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string, unknown>)[key] = value;
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { holdSecret, SecretSet, useSecretScope } from '../secrets.js';

/*
 * Each client's secrets are its own (src/secrets.ts): while one of its calls runs, what it holds and
 * what it masks (its key, a key it is rotating to) is its set's, not the process's. So two clients in
 * one program share nothing, and a program making a client per tenant does not pile up every key for
 * the process's lifetime. The CLI makes no scope: a command's secrets are its process's.
 */
const scope = new AsyncLocalStorage<SecretSet>();
useSecretScope(() => scope.getStore());

/** A new client's set, holding its key from the start. */
export function clientSecrets(apiKey: string): SecretSet {
  const set = new SecretSet();
  holdSecret(apiKey, set);
  return set;
}

/**
 * `target` with every method run in `set`'s scope, and what a method hands back for later (a
 * thenable page, a page generator, an async iterator) run in it too when it is used.
 */
export function scoped<T extends object>(target: T, set: SecretSet): T {
  return new Proxy(target, {
    get(object, prop) {
      const value = Reflect.get(object, prop, object) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => later(scope.run(set, () => (value as (...a: unknown[]) => unknown).apply(object, args)), set);
    },
  });
}

function later(value: unknown, set: SecretSet): unknown {
  if (value instanceof Promise || value === null || typeof value !== 'object') return value;
  const v = value as Record<string | symbol, unknown>;
  // An async iterator: each step runs in the scope.
  if (typeof v.next === 'function') {
    const step = (name: 'next' | 'return' | 'throw') => (typeof v[name] === 'function' ? (...a: unknown[]) => scope.run(set, () => (v[name] as (...x: unknown[]) => unknown).apply(value, a)) : undefined);
    return { next: step('next'), ...(v.return ? { return: step('return') } : {}), ...(v.throw ? { throw: step('throw') } : {}), [Symbol.asyncIterator]() { return this; } };
  }
  // A thenable with more to it (apiKeys.list): its functions, in the scope.
  if (typeof v.then === 'function' || typeof v[Symbol.asyncIterator] === 'function') return scoped(value, set);
  return value;
}

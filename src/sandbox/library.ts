/**
 * `import { startSandbox } from 'mailroom-cli/sandbox'`: the sandbox of `mailroom sandbox`, started
 * in-process for a user's own test suite (docs/sandbox-in-your-tests.md). The same server, config
 * and checks as the command; this module only sets the defaults a test wants and gives typed access
 * to what the inspection endpoints show.
 */
import type { EventName } from '../schema/events.js';
import type { Envelope } from '../webhook/samples.js';
import type { DeliveryRecord } from './state.js';
import type { SandboxDelivery, SandboxEmail, SandboxEnvelope, SandboxEventName, Sandbox, StartSandboxOptions } from './public-types.js';

export type * from './public-types.js';

// The public event names are the schema's, both ways (a compile error here means they drifted).
const sameEvents: [EventName, SandboxEventName] extends [SandboxEventName, EventName] ? true : never = true;
void sameEvents;

/** The header a delivery's signature travels in (lower case, as Node reports request headers). */
export const SIGNATURE_HEADER = 'x-smashsend-signature' as const;

/** Starts a sandbox on a free loopback port (unless `port` says otherwise) and resolves once it listens. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<Sandbox> {
  const { startSandbox: start, loadConfigFile } = await import('./index.js');
  const fromFile = options.configFile === undefined ? {} : await loadConfigFile(options.configFile);
  const running = await start({
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    config: { ...fromFile, ...options.config },
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    log: options.log ?? ((line) => console.error(line)),
  });

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    const res = await running.call(method, path, body);
    if (res.status !== 200) {
      const message = (res.body as { message?: unknown } | undefined)?.message;
      throw new Error(`mailroom sandbox: ${method} ${path} answered ${res.status}${typeof message === 'string' ? `: ${message}` : ''}`);
    }
    return res.body;
  };
  const deliveries = async () => ((await call('GET', '/_sandbox/deliveries')) as { items: DeliveryRecord[] }).items.map(publicDelivery);

  return {
    baseUrl: running.baseUrl,
    apiKey: running.apiKey,
    workspaceId: running.workspaceId,
    emails: async () => ((await call('GET', '/_sandbox/emails')) as { items: SandboxEmail[] }).items,
    deliveries,
    waitForDeliveries(count, { timeoutMs = 5_000 } = {}) {
      return new Promise((resolve, reject) => {
        let done = false;
        const check = () => {
          void deliveries().then((items) => {
            if (done || items.length < count) return;
            finish();
            resolve(items);
          }, fail);
        };
        const fail = (err: unknown) => {
          if (done) return;
          finish();
          reject(err instanceof Error ? err : new Error(String(err)));
        };
        const timer = setTimeout(() => fail(new Error(`mailroom sandbox: ${count} deliveries were not recorded within ${timeoutMs} ms`)), timeoutMs);
        const unsubscribe = running.onDelivery(check);
        function finish() {
          done = true;
          clearTimeout(timer);
          unsubscribe();
        }
        check();
      });
    },
    async waitForIdle({ timeoutMs = 5_000 } = {}) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`mailroom sandbox: deliveries were still pending after ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([running.deliveriesIdle(), late]);
      } finally {
        clearTimeout(timer);
      }
      return deliveries();
    },
    reset: async () => {
      // Deliveries already on their way arrive first: a receiver in the same test process has
      // seen them before reset() resolves, so none lands in the next test.
      await running.deliveriesSettled();
      await call('POST', '/_sandbox/reset', {});
    },
    trigger: async (event, { email } = {}) =>
      ((await call('POST', '/_sandbox/events', email === undefined ? { event } : { event, email })) as { event: Envelope }).event satisfies SandboxEnvelope,
    async close() {
      await running.close();
      // The closed sockets' handles go on the next turn: a runner that looks for open handles
      // right after close() (jest --detectOpenHandles) finds none.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/** A recorded attempt as the public type has it; attempts always carry their id, body and signature now. */
function publicDelivery(record: DeliveryRecord): SandboxDelivery {
  const body = record.body ?? '';
  return {
    ...record,
    id: record.id ?? '',
    event: record.event as SandboxEventName,
    body,
    signature: record.signature ?? '',
    payload: JSON.parse(body) as SandboxEnvelope,
  };
}

import { startSandbox, type DeliveryRecord, type InboxEmail, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export type { DeliveryRecord, InboxEmail, RunningSandbox, SandboxOptions };

export interface TestSandbox extends RunningSandbox {
  /** Every email the sandbox caught (GET /_sandbox/emails). */
  emails(): Promise<InboxEmail[]>;
  /** Every webhook delivery attempt (GET /_sandbox/deliveries). */
  deliveries(): Promise<DeliveryRecord[]>;
}

async function items<T>(url: string): Promise<T[]> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return ((await res.json()) as { items: T[] }).items;
}

/** A real sandbox on a free loopback port, quiet; close it in afterAll/afterEach. */
export async function withSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ quiet: true, port: 0, ...opts });
  return {
    ...sandbox,
    close: () => sandbox.close(),
    emails: () => items<InboxEmail>(`${sandbox.baseUrl}/_sandbox/emails`),
    deliveries: () => items<DeliveryRecord>(`${sandbox.baseUrl}/_sandbox/deliveries`),
  };
}

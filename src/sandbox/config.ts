import { Readable } from 'node:stream';
import * as z from 'zod';
import { locateJsonError } from '../input/json-text.js';
import { checkText, readCapped } from '../input/text.js';
import { describeIssues } from '../schema/issues.js';
import { createWebhookRequestSchema } from '../schema/webhook.js';
import { DEFAULT_RETAIN } from './state.js';
import type { DeliveryConfig, FaultConfig, SandboxConfig, TemplateConfig, WebhookConfig } from './public-types.js';

export type { DeliveryConfig, FaultConfig, SandboxConfig, TemplateConfig, WebhookConfig } from './public-types.js';

export interface ResolvedConfig {
  verifiedEmails: string[];
  verifiedDomains: string[];
  templates: Record<string, TemplateConfig>;
  monthlyLimit: number | undefined;
  rateLimit: number | undefined;
  retain: number;
  faults: Required<Omit<FaultConfig, 'seed'>> & { seed: number | undefined };
  deliveries: Required<DeliveryConfig>;
  webhooks: WebhookConfig[];
}

export const DEFAULT_VERIFIED_DOMAINS = ['example.com'];
export const BUILT_IN_TEMPLATES: Record<string, TemplateConfig> = {
  welcome: { from: 'hello@example.com', subject: 'Welcome, {{name}}', html: '<p>Hi {{name}}, welcome aboard!</p>' },
};
export const DEFAULT_DELIVERY_RETRY_DELAYS_MS = [500, 2_000, 8_000];
export const DEFAULT_DELIVERY_TIMEOUT_MS = 5_000;
/** Deliveries waiting for a turn or a retry, at most: a receiver that never answers cannot grow memory without limit. */
export const DEFAULT_DELIVERY_MAX_QUEUED = 10_000;

const share = z.number().min(0).max(1);
const templateSchema = z.strictObject({ from: z.string().min(1).optional(), subject: z.string(), html: z.string() });

export const sandboxConfigSchema = z.strictObject({
  verifiedEmails: z.array(z.string().min(1)).optional(),
  verifiedDomains: z.array(z.string().min(1)).optional(),
  templates: z.record(z.string().min(1), templateSchema).optional(),
  monthlyLimit: z.number().int().nonnegative().optional(),
  rateLimit: z.number().positive().optional(),
  retain: z.number().int().positive().optional(),
  faults: z
    .strictObject({
      errorRate: share.optional(),
      dropRate: share.optional(),
      lostRate: share.optional(),
      latencyMs: z.number().int().nonnegative().max(60_000).optional(),
      latencyBeforeMs: z.number().int().nonnegative().max(60_000).optional(),
      seed: z.number().int().nonnegative().max(2 ** 32 - 1).optional(),
    })
    .optional(),
  deliveries: z
    .strictObject({
      retryDelaysMs: z.array(z.number().int().nonnegative().max(3_600_000)).max(10).optional(),
      timeoutMs: z.number().int().positive().max(300_000).optional(),
      /** Deliver to any host, not only this machine's (loopback, localhost, *.test). */
      allowRemote: z.boolean().optional(),
      /** Deliveries that may wait (for a turn or a retry) beyond those in flight; past it, new ones are dropped and counted. */
      maxQueued: z.number().int().nonnegative().max(1_000_000).optional(),
    })
    .optional(),
  webhooks: z.array(createWebhookRequestSchema).max(100).optional(),
});

/** A config that cannot be used; its message is one line fit for the terminal. */
export class SandboxConfigError extends Error {
  override name = 'SandboxConfigError';
}


export function parseSandboxConfig(input: unknown, source = 'sandbox config'): SandboxConfig {
  const parsed = sandboxConfigSchema.safeParse(input);
  if (!parsed.success) throw new SandboxConfigError(`${source}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

export async function loadConfigFile(path: string, option = '--config'): Promise<SandboxConfig> {
  let text: string;
  try {
    // At most the input limit, UTF-8 text (input/text.ts), like every file mailroom reads.
    const bytes = await readCapped(path, option, '', Readable.from([]));
    checkText(bytes, `${option} ${path}`);
    text = bytes.toString('utf8');
  } catch (err) {
    throw new SandboxConfigError((err as Error).message);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const e = locateJsonError(text);
    throw new SandboxConfigError(`config file ${path} is not valid JSON at line ${e.line}, column ${e.column}: ${e.problem}`);
  }
  return parseSandboxConfig(json, `config file ${path}`);
}

/** Defaults (docs/sandbox-guide.md): example.com verified, a built-in `welcome` template, no limits, no faults. */
export function resolveConfig(config: SandboxConfig = {}): ResolvedConfig {
  const checked = parseSandboxConfig(config);
  return {
    verifiedEmails: (checked.verifiedEmails ?? []).map((e) => e.toLowerCase()),
    verifiedDomains: (checked.verifiedDomains ?? DEFAULT_VERIFIED_DOMAINS).map((d) => d.toLowerCase()),
    templates: { ...BUILT_IN_TEMPLATES, ...checked.templates },
    monthlyLimit: checked.monthlyLimit,
    rateLimit: checked.rateLimit,
    retain: checked.retain ?? DEFAULT_RETAIN,
    faults: {
      errorRate: checked.faults?.errorRate ?? 0,
      dropRate: checked.faults?.dropRate ?? 0,
      lostRate: checked.faults?.lostRate ?? 0,
      latencyMs: checked.faults?.latencyMs ?? 0,
      latencyBeforeMs: checked.faults?.latencyBeforeMs ?? 0,
      seed: checked.faults?.seed,
    },
    deliveries: {
      retryDelaysMs: checked.deliveries?.retryDelaysMs ?? DEFAULT_DELIVERY_RETRY_DELAYS_MS,
      timeoutMs: checked.deliveries?.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
      allowRemote: checked.deliveries?.allowRemote ?? false,
      maxQueued: checked.deliveries?.maxQueued ?? DEFAULT_DELIVERY_MAX_QUEUED,
    },
    webhooks: checked.webhooks ?? [],
  };
}

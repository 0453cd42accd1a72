import type { CommandContext } from './context.js';
import { describeSource } from '../config/settings.js';
import { QuietExit } from '../errors.js';
import { mask, outputMode, printJson, printKeyValues } from '../output/index.js';
import { oneLine } from '../output/one-line.js';
import { checkDetail, diagnose, type Diagnosis } from './shared/diagnose.js';

/** Exits 3 without a valid key, 6 when the API is unreachable; what failed is already printed. */
export async function run(_opts: Record<string, never>, ctx: CommandContext): Promise<void> {
  const d = await diagnose(ctx, { identityOnly: true });
  const code = await printWhoami(ctx, d);
  if (code !== 0) throw new QuietExit(code, d.failed && checkDetail(d.failed));
}

/** `whoami`: doctor's short form, the identity the API sees and where its parts came from. */
export async function runWhoami(ctx: CommandContext): Promise<number> {
  return printWhoami(ctx, await diagnose(ctx, { identityOnly: true }));
}

async function printWhoami(ctx: CommandContext, d: Diagnosis): Promise<number> {
  const { globals } = ctx;
  if (globals.quiet) return d.exitCode;
  const s = d.settings;
  const key = s?.apiKey;
  const ws = s?.workspace;
  const view = {
    ...(d.identity ?? {}),
    ...(s ? { profile: s.profile.value, profileSource: s.profile.source, profileOrigin: s.profile.origin } : {}),
    ...(key ? { key: mask(key.value), keySource: key.source, keyOrigin: key.origin } : {}),
    baseUrl: s?.baseUrl.value,
    ...(s ? { baseUrlSource: s.baseUrl.source, baseUrlOrigin: s.baseUrl.origin } : {}),
    workspace: ws?.value,
    ...(ws ? { workspaceSource: ws.source, workspaceOrigin: ws.origin } : {}),
  };
  if (outputMode(ctx, globals).format === 'json') printJson(ctx, view);
  else {
    await printKeyValues(ctx, [
      ['name', d.identity?.displayName],
      ['role', d.identity?.role],
      ['status', d.identity?.status],
      ['profile', s ? `${s.profile.value} (${describeSource(s.profile)})` : undefined],
      ['key', key ? mask(key.value) : undefined],
      ['key from', key ? describeSource(key) : undefined],
      ['api', s?.baseUrl.value],
      ['api from', s ? describeSource(s.baseUrl) : undefined],
      ['workspace', ws?.value],
      ['workspace from', ws ? describeSource(ws) : undefined],
    ]);
  }
  for (const check of d.checks.filter((k) => k.status === 'fail')) {
    ctx.io.err.write(`mailroom: ${check.name}: ${oneLine(check.detail)}\n${check.fix ? `  ${oneLine(check.fix)}\n` : ''}`);
  }
  return d.exitCode;
}

import type { CommandContext } from '../context.js';
import { clientOver, type Mailroom } from '../../library/mailroom.js';

/**
 * The library's client (docs/library.md) over the command's one transport: commands call the
 * methods a program calls, so there is one implementation of each API call. The context still
 * owns the transport (opened on first use, closed by run()).
 */
export async function apiClient(ctx: CommandContext, workspaceId?: string): Promise<Mailroom> {
  const settings = ctx.settings();
  const transport = await ctx.api();
  return clientOver(transport, {
    baseUrl: settings.baseUrl.value,
    apiKey: settings.apiKey?.value ?? '',
    workspaceId,
    maxRetries: settings.maxRetries.value,
    env: ctx.env,
  });
}

import type { Context, Globals, Prompter } from '../context.js';
import { requireNamedProfile, resolveSettings, settingsLine, type Settings } from '../config/settings.js';
import { clearTextProblem } from '../config/url.js';
import { terminalPrompter } from '../input/prompter.js';
import type { Transport } from '../transport/index.js';
import type { TransportOverrides } from '../transport/create.js';
import type { SandboxAdmin } from '../transport/sandbox-admin.js';
import { notice } from '../output/notice.js';

/**
 * What every command's `run(opts, ctx)` receives (gh's Factory, but lazy): the context plus the
 * global options, the settings resolved once, the one API transport created on first use, and the
 * prompter. run() (src/run.ts) closes what `api()` opened after the action, whatever happened, so
 * no command opens or closes a transport (docs/internals.md, "The context").
 */
export interface CommandContext extends Context {
  readonly globals: Globals;
  /** flag > --profile's > environment > MAILROOM_PROFILE's or default's > default, resolved on first call (the `--sandbox` session over all). */
  settings(): Settings;
  /**
   * The API, authenticated with the settings' key; the same transport on every call. With `as`,
   * a separate one for another key (a key just created, to check it before it is stored), on
   * another host if given (login checks a key on the host it saves it with).
   */
  api(as?: { apiKey: string; origin: string; baseUrl?: string }): Promise<Transport>;
  /**
   * A running sandbox's own endpoints (src/transport/sandbox-admin.ts) at the settings' base URL (the
   * local sandbox's by default), over a transport of the same kind, keyless, made on first call.
   */
  sandboxAdmin(): Promise<SandboxAdmin>;
  readonly prompter: Prompter;
}

/**
 * Builds the command context from the base context and the parsed global options; the verb
 * wrapper (src/commands/verb.ts) calls it once per command line.
 */
export function commandContext(ctx: Context, globals: Globals, overrides: TransportOverrides = {}): CommandContext {
  let settings: Settings | undefined;
  let transport: Promise<Transport> | undefined;
  let admin: Promise<SandboxAdmin> | undefined;
  let saidSettings = false;
  const warnedClearText = new Set<string>();
  // Once per host and command, however many requests follow (docs/configuration.md, "Plain http").
  const warnClearText = (baseUrl: string) => {
    const problem = globals.allowHttp ? undefined : clearTextProblem(baseUrl);
    if (!problem || warnedClearText.has(baseUrl)) return;
    warnedClearText.add(baseUrl);
    notice(ctx.io.err, 'warning', `${problem}: use https://, or --allow-http to send it knowingly`);
  };
  const open = (chosen: Settings): Promise<Transport> => {
    const created = import('../transport/create.js').then(({ createTransport }) => createTransport(ctx, chosen, overrides));
    // A transport that was never made (no key) has nothing to close.
    ctx.cleanups?.push(async () => (await created.catch(() => undefined))?.close());
    return created;
  };
  const self: CommandContext = {
    ...ctx,
    globals,
    prompter: ctx.prompter ?? terminalPrompter,
    settings: () => (settings ??= resolveSettings(ctx, globals)),
    api(as) {
      const current = self.settings();
      if (!saidSettings) {
        saidSettings = true;
        if (current.setAside) notice(ctx.io.err, 'warning', current.setAside);
        if (current.verbose) ctx.io.err.write(`settings: ${settingsLine(current)}\n`);
      }
      warnClearText(as?.baseUrl ?? current.baseUrl.value);
      if (as) {
        const baseUrl = as.baseUrl === undefined ? current.baseUrl : { value: as.baseUrl, source: 'flag' as const, origin: as.origin };
        return open({ ...current, apiKey: { value: as.apiKey, source: 'flag', origin: as.origin }, baseUrl });
      }
      // A profile named on purpose that is not stored is a typo: no request with credentials nobody chose.
      requireNamedProfile(current);
      return (transport ??= open(current));
    },
    sandboxAdmin() {
      admin ??= (async () => {
        const current = self.settings();
        // Loaded here, not at start-up: only the sandbox commands use it.
        const { sandboxAdminOver, sandboxRoot } = await import('../transport/sandbox-admin.js');
        const root = sandboxRoot(current);
        const created = import('../transport/create.js').then(({ createSandboxTransport }) => createSandboxTransport(ctx, current, root, overrides));
        ctx.cleanups?.push(async () => (await created.catch(() => undefined))?.close());
        return sandboxAdminOver(await created, root, ctx.signal);
      })();
      return admin;
    },
  };
  return self;
}

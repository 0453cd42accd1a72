import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { Globals } from '../context.js';
import type { Settings } from '../config/settings.js';
import { QuietExit } from '../errors.js';
import { count } from '../count.js';
import { oneLine } from '../output/one-line.js';

export function register(parent: Command, ctx: Context): void {
  parent
    .command('doctor')
    .description('check everything that decides whether commands work: versions, config, credentials, the API, proxy, clock')
    .addHelpText(
      'after',
      `
Each line is ok, warn or fail, with the fix under it. The key is checked against the API.

Examples:
  $ mailroom doctor
  $ mailroom doctor --json | jq '.checks[] | select(.status != "ok")'
  $ mailroom --profile ci doctor

Exit codes: 0 nothing needed failed, 3 no key or a rejected one, 6 API unreachable, 2 bad config.`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const code = await runDoctor(ctx, cmd.optsWithGlobals<Globals>());
      // The report is printed; the code goes back through run() (main exits with what run returns).
      if (code !== 0) throw new QuietExit(code);
    });
}

export type Status = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: Status;
  detail: string;
  fix?: string;
  /** The exit code a failure of this check means (only failures of needed checks set one). */
  exitCode?: number;
}

export interface Identity {
  status?: unknown;
  displayName?: unknown;
  role?: unknown;
}

export interface Diagnosis {
  checks: Check[];
  identity: Identity | undefined;
  settings: Settings | undefined;
  exitCode: number;
}

const MIN_NODE = [20, 18, 1] as const;

function nodeCheck(): Check {
  const have = process.versions.node.split('.').map(Number);
  const differs = MIN_NODE.findIndex((n, i) => (have[i] ?? 0) !== n);
  const old = differs >= 0 && (have[differs] ?? 0) < (MIN_NODE[differs] as number);
  return old
    ? { name: 'node', status: 'fail', detail: `${process.version} (mailroom needs ${MIN_NODE.join('.')} or later)`, fix: 'install Node.js 20.18 or later', exitCode: 1 }
    : { name: 'node', status: 'ok', detail: process.version };
}

async function configCheck(file: string): Promise<Check> {
  const { statSync } = await import('node:fs');
  const name = 'config file';
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return { name, status: 'ok', detail: `${file} (none yet: mailroom login creates it)` };
  }
  const { readStoredConfig } = await import('../config/file.js');
  try {
    readStoredConfig(file);
  } catch (err) {
    return { name, status: 'fail', detail: `${file}: ${(err as Error).message.replace(/^config file \S+ /, '')}`, fix: 'fix it by hand, or delete it and run `mailroom login` again', exitCode: 2 };
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    return { name, status: 'warn', detail: `${file}: readable by others (mode ${mode.toString(8)})`, fix: `chmod 600 ${file} (it holds API keys)` };
  }
  return { name, status: 'ok', detail: `${file} (mode ${mode.toString(8)})` };
}

/** The proxy variables in effect, without any credentials in them, and whether the API host goes through. */
async function proxyCheck(ctx: Context, baseUrl: string): Promise<Check> {
  const [{ proxySettings }, { isLoopback }] = await Promise.all([import('../transport/agent.js'), import('../config/url.js')]);
  const proxy = proxySettings(ctx.env);
  if (!proxy) return { name: 'proxy', status: 'ok', detail: 'none (no HTTPS_PROXY, HTTP_PROXY)' };
  const host = new URL(baseUrl).hostname;
  const https = baseUrl.startsWith('https:');
  const used = https ? proxy.httpsProxy : proxy.httpProxy;
  const shown = (url: string | undefined) => {
    try {
      const u = new URL(url ?? '');
      return `${u.protocol}//${u.host}`;
    } catch {
      return '(not a URL)';
    }
  };
  const vars = [
    ['HTTPS_PROXY', ctx.env.HTTPS_PROXY || ctx.env.https_proxy],
    ['HTTP_PROXY', ctx.env.HTTP_PROXY || ctx.env.http_proxy],
  ].filter(([, v]) => v).map(([n, v]) => `${n}=${shown(v)}`);
  if (proxy.noProxy) vars.push(`NO_PROXY=${proxy.noProxy}`);
  const noProxy = (proxy.noProxy ?? '').split(/[\s,]+/).filter(Boolean);
  const bypassed = noProxy.some((entry) => entry === '*' || host === entry.replace(/^\*?\./, '') || host.endsWith(`.${entry.replace(/^\*?\./, '')}`));
  const route = isLoopback(host)
    ? `${host} is loopback: not proxied`
    : bypassed
      ? `${host} is in NO_PROXY: not proxied`
      : used
        ? `requests to ${host} go through ${shown(used)}`
        : `no proxy for ${https ? 'https' : 'http'}: URLs`;
  return { name: 'proxy', status: 'ok', detail: `${vars.join(', ')}; ${route}` };
}

async function stateCheck(ctx: Context): Promise<Check> {
  const [{ batchJournalDir }, fs] = await Promise.all([import('../batch/paths.js'), import('node:fs')]);
  const dir = batchJournalDir(ctx.env);
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return { name: 'state dir', status: 'ok', detail: `${dir} (not created yet; batch creates it)` };
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return { name: 'state dir', status: 'warn', detail: `${dir}: not writable`, fix: `batch cannot journal there: fix its permissions, or set MAILROOM_STATE_DIR` };
  }
  const journals = entries.filter((e) => e.endsWith('.journal')).length;
  return { name: 'state dir', status: 'ok', detail: `${dir}: writable, ${count(journals, 'journal')}` };
}

/** Everything doctor and whoami report, gathered once; a failed needed check decides the exit code. */
export async function diagnose(ctx: Context, globals: Globals, { identityOnly = false } = {}): Promise<Diagnosis> {
  const [{ VERSION }, settingsModule, { mask }] = await Promise.all([import('../version.js'), import('../config/settings.js'), import('../secrets.js')]);
  const { resolveSettings, describeSource, authHint } = settingsModule;
  const { configFile } = await import('../config/paths.js');
  const checks: Check[] = [];
  const add = (c: Check) => void checks.push(c);
  if (!identityOnly) {
    add({ name: 'mailroom', status: 'ok', detail: VERSION });
    add(nodeCheck());
  }
  const config = await configCheck(configFile(ctx.env));
  if (!identityOnly || config.status === 'fail') add(config);
  if (config.status === 'fail') return finish(checks, undefined, undefined);

  let settings: Settings;
  try {
    settings = resolveSettings(ctx, globals);
  } catch (err) {
    add({ name: 'settings', status: 'fail', detail: (err as Error).message, exitCode: 2 });
    return finish(checks, undefined, undefined);
  }
  const from = (s: { source: Parameters<typeof describeSource>[0]['source']; origin: string }) => describeSource(s);
  const key = settings.apiKey;
  if (!identityOnly) {
    add({ name: 'profile', status: 'ok', detail: `${settings.profile.value} (${from(settings.profile)})${settings.profileExists ? '' : ', not stored'}` });
  }
  add(
    key
      ? { name: 'API key', status: 'ok', detail: `${mask(key.value)} (${from(key)})` }
      : { name: 'API key', status: 'fail', detail: 'none', fix: 'run `mailroom login`, or set MAILROOM_API_KEY, or pass --api-key (try --sandbox without an account)', exitCode: 3 },
  );
  add({ name: 'base URL', status: 'ok', detail: `${settings.baseUrl.value} (${from(settings.baseUrl)})` });
  const ws = settings.workspace;
  add(
    ws
      ? { name: 'workspace', status: 'ok', detail: `${ws.value} (${from(ws)})` }
      : { name: 'workspace', status: 'warn', detail: 'none (only keys commands need one)', fix: 'pass --workspace, set MAILROOM_WORKSPACE, or `mailroom config set workspace wrk_…`' },
  );
  if (!identityOnly) add(await proxyCheck(ctx, settings.baseUrl.value));

  let identity: Identity | undefined;
  if (key) {
    const [{ createTransport }, { ApiError }] = await Promise.all([import('../transport/create.js'), import('../transport/errors.js')]);
    const transport = await createTransport(ctx, settings);
    const started = Date.now();
    try {
      const res = await transport.request({ method: 'GET', path: '/v1/api-keys/check', signal: ctx.signal });
      const ms = Date.now() - started;
      identity = res.body && typeof res.body === 'object' ? (res.body as Identity) : {};
      if (!identityOnly) add({ name: 'reachable', status: 'ok', detail: `HTTP ${res.status} in ${ms} ms${settings.baseUrl.value.startsWith('https:') ? ', TLS verified' : ''}` });
      add({ name: 'key check', status: 'ok', detail: [identity.status, identity.displayName, identity.role, ws ? `workspace ${ws.value}` : undefined].filter((v) => v !== undefined && v !== null).join(', ').replace(/^([^,]+), /, '$1: ') });
      if (!identityOnly) add(clockCheck(res.headers.date, started, Date.now()));
    } catch (err) {
      if (err instanceof ApiError) {
        if (!identityOnly) add({ name: 'reachable', status: 'ok', detail: `HTTP ${err.status} in ${Date.now() - started} ms` });
        add({ name: 'key check', status: 'fail', detail: `HTTP ${err.status}: ${err.message}`, fix: err.kind === 'auth' ? authHint(settings) : (err.hints[0] ?? 'see the message'), exitCode: err.exitCode });
      } else {
        const e = err as { message?: string; exitCode?: number; hints?: string[] };
        add({ name: 'reachable', status: 'fail', detail: e.message ?? String(err), fix: e.hints?.[0] ?? 'check --base-url and your network', exitCode: e.exitCode ?? 6 });
      }
    } finally {
      await transport.close();
    }
  }
  if (!identityOnly) add(await stateCheck(ctx));
  return finish(checks, identity, settings);
}

/** The API's Date header against this machine's clock, at the middle of the request. */
function clockCheck(date: string | string[] | undefined, sent: number, received: number): Check {
  const at = Date.parse(Array.isArray(date) ? (date[0] ?? '') : (date ?? ''));
  if (Number.isNaN(at)) return { name: 'clock', status: 'warn', detail: 'the API sent no Date header to compare with' };
  const skew = Math.round(((sent + received) / 2 - at) / 1000);
  if (Math.abs(skew) <= 60) return { name: 'clock', status: 'ok', detail: `within a minute of the API's (${skew >= 0 ? '+' : ''}${skew} s)` };
  return { name: 'clock', status: 'warn', detail: `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the API`, fix: 'sync the clock (NTP): --send-at times and relative dates are read against it' };
}

function finish(checks: Check[], identity: Identity | undefined, settings: Settings | undefined): Diagnosis {
  const failed = checks.find((c) => c.status === 'fail' && c.exitCode !== undefined);
  return { checks, identity, settings, exitCode: failed?.exitCode ?? 0 };
}

export async function runDoctor(ctx: Context, globals: Globals): Promise<number> {
  const d = await diagnose(ctx, globals);
  if (globals.quiet) return d.exitCode;
  const { outputMode, printJson, palette } = await import('../output/index.js');
  const mode = outputMode(ctx, globals);
  if (mode.format === 'json') {
    printJson(ctx, { ok: d.exitCode === 0, checks: d.checks.map(({ exitCode: _code, ...c }) => c) });
    return d.exitCode;
  }
  const c = await palette(mode.color);
  const paint = { ok: c.green, warn: c.yellow, fail: c.red };
  const width = Math.max(...d.checks.map((k) => k.name.length));
  for (const check of d.checks) {
    ctx.io.out.write(`${paint[check.status](check.status.padEnd(4))}  ${check.name.padEnd(width)}  ${oneLine(check.detail)}\n`);
    if (check.fix && check.status !== 'ok') ctx.io.out.write(`      fix: ${oneLine(check.fix)}\n`);
  }
  return d.exitCode;
}

/** `whoami`: doctor's short form, the identity the API sees and where its parts came from. */
export async function runWhoami(ctx: Context, globals: Globals): Promise<number> {
  const d = await diagnose(ctx, globals, { identityOnly: true });
  if (globals.quiet) return d.exitCode;
  const [{ outputMode, printJson, printKeyValues, mask }, { describeSource }] = await Promise.all([import('../output/index.js'), import('../config/settings.js')]);
  const s = d.settings;
  const key = s?.apiKey;
  const view = {
    ...(d.identity ?? {}),
    ...(key ? { key: mask(key.value), keySource: key.source, keyOrigin: key.origin } : {}),
    baseUrl: s?.baseUrl.value,
    workspace: s?.workspace?.value,
  };
  if (outputMode(ctx, globals).format === 'json') printJson(ctx, view);
  else {
    await printKeyValues(ctx, [
      ['name', d.identity?.displayName],
      ['role', d.identity?.role],
      ['status', d.identity?.status],
      ['key', key ? mask(key.value) : undefined],
      ['key from', key ? describeSource(key) : undefined],
      ['api', s?.baseUrl.value],
      ['workspace', s?.workspace?.value],
    ]);
  }
  for (const check of d.checks.filter((k) => k.status === 'fail')) {
    ctx.io.err.write(`mailroom: ${check.name}: ${oneLine(check.detail)}\n${check.fix ? `  ${oneLine(check.fix)}\n` : ''}`);
  }
  return d.exitCode;
}

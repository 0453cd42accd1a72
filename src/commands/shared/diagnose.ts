import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { batchJournalDir } from '../../batch/paths.js';
import type { CommandContext } from '../context.js';
import { readStoredConfig, type StoredConfig } from '../../config/file.js';
import { keyLocation } from '../../config/credentials.js';
import { KEYCHAIN_SERVICE, keychainOf, KeychainUnavailable } from '../../config/keychain.js';
import { configFile } from '../../config/paths.js';
import { authHint, describeSource, requireNamedProfile, type Settings } from '../../config/settings.js';
import { isMailroomError, type MailroomError } from '../../errors.js';
import { exitCodeOf } from '../../exit-codes.js';
import { clearTextProblem, isLoopback } from '../../config/url.js';
import type { Context } from '../../context.js';
import { count } from '../../plural.js';
import { mask } from '../../secrets.js';
import { proxySettings } from '../../transport/agent.js';
import { ApiError } from '../../transport/http-errors.js';
import { transportHints } from './transport-hints.js';
import { VERSION } from '../../version.js';
import { paths } from '../../api/paths.js';

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
  /** The first needed check that failed: the one `exitCode` comes from. */
  failed?: Check;
}

/** A failed check as the JSON document's error says it (doctor and whoami print their checks themselves). */
export function checkDetail(check: Check): { message: string; hints: string[] } {
  return { message: `${check.name}: ${check.detail}`, hints: check.fix ? [check.fix] : [] };
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

async function configCheck(file: string, read: (c: StoredConfig) => void = () => undefined): Promise<Check> {
  const name = 'config file';
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return { name, status: 'ok', detail: `${file} (none yet: mailroom login creates it)` };
  }
  try {
    read(readStoredConfig(file));
  } catch (err) {
    return { name, status: 'fail', detail: `${file}: ${(err as Error).message.replace(/^config file \S+ /, '')}`, fix: 'fix it by hand, or delete it and run `mailroom login` again', exitCode: 2 };
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    return { name, status: 'warn', detail: `${file}: readable by others (mode ${mode.toString(8)})`, fix: `chmod 600 ${file} (it holds API keys)` };
  }
  return { name, status: 'ok', detail: `${file} (mode ${mode.toString(8)})` };
}

/**
 * Where each stored profile's key lives (the system keychain, the config file, none), and whether a
 * keychain can be used here at all: a key still in the file while one could be is a warning.
 */
function keysCheck(ctx: Context, stored: StoredConfig | undefined, settings: Settings): Check {
  const name = 'key storage';
  const profiles = Object.entries(stored?.profiles ?? {});
  const mode = settings.secureStorage;
  let keychain = `secure-storage off (${describeSource(mode)}): keys are saved in the config file`;
  let usable = false;
  // With secure-storage off the keychain is not used, so not looked at either.
  if (mode.value !== 'off' || profiles.some(([, p]) => p.keychain)) {
    try {
      keychainOf(ctx).get({ service: KEYCHAIN_SERVICE, account: 'mailroom doctor' });
      keychain = `system keychain available, secure-storage ${mode.value} (${describeSource(mode)})`;
      usable = mode.value !== 'off';
    } catch (err) {
      if (!(err instanceof KeychainUnavailable)) throw err;
      keychain = `no system keychain here (${err.message}), secure-storage ${mode.value} (${describeSource(mode)})`;
    }
  }
  const where = { keychain: 'system keychain', file: 'config file', none: 'no key' } as const;
  const each = profiles.map(([profile, p]) => `${profile}: ${where[keyLocation(p)]}`);
  const inFile = profiles.filter(([, p]) => keyLocation(p) === 'file').length;
  const detail = `${keychain}${each.length > 0 ? `; ${each.join(', ')}` : ''}`;
  return usable && inFile > 0 ? { name, status: 'warn', detail, fix: 'mailroom login --migrate (moves them into the keychain)' } : { name, status: 'ok', detail };
}

/** The proxy variables in effect, without any credentials in them, and whether the API host goes through. */
async function proxyCheck(ctx: Context, baseUrl: string): Promise<Check> {
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
  const dir = batchJournalDir(ctx.env);
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return { name: 'state dir', status: 'ok', detail: `${dir} (not created yet; batch creates it)` };
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return { name: 'state dir', status: 'warn', detail: `${dir}: not writable`, fix: `batch cannot journal there: fix its permissions, or set MAILROOM_STATE_DIR` };
  }
  const journals = entries.filter((e) => e.endsWith('.journal')).length;
  return { name: 'state dir', status: 'ok', detail: `${dir}: writable, ${count(journals, 'journal')}` };
}

/** Everything doctor and whoami report, gathered once; a failed needed check decides the exit code. */
export async function diagnose(ctx: CommandContext, { identityOnly = false } = {}): Promise<Diagnosis> {
  const checks: Check[] = [];
  const add = (c: Check) => void checks.push(c);
  if (!identityOnly) {
    add({ name: 'mailroom', status: 'ok', detail: VERSION });
    add(nodeCheck());
  }
  let stored: StoredConfig | undefined;
  const config = await configCheck(configFile(ctx.env), (c) => (stored = c));
  if (!identityOnly || config.status === 'fail') add(config);
  if (config.status === 'fail') return finish(checks, undefined, undefined);

  let settings: Settings;
  try {
    settings = ctx.settings();
  } catch (err) {
    add({ name: 'settings', status: 'fail', detail: (err as Error).message, exitCode: 2 });
    return finish(checks, undefined, undefined);
  }
  const from = (s: { source: Parameters<typeof describeSource>[0]['source']; origin: string }) => describeSource(s);
  if (!identityOnly) add(keysCheck(ctx, stored, settings));
  const key = settings.apiKey;
  // A profile named on purpose that is not stored: every API command refuses it (commands/context.ts), so doctor says so.
  let unknownProfile: MailroomError | undefined;
  try {
    requireNamedProfile(settings);
  } catch (err) {
    if (!isMailroomError(err)) throw err;
    unknownProfile = err;
  }
  if (unknownProfile) add({ name: 'profile', status: 'fail', detail: unknownProfile.message, ...(unknownProfile.hints[0] ? { fix: unknownProfile.hints[0] } : {}), exitCode: exitCodeOf(unknownProfile) });
  else if (!identityOnly) {
    add({ name: 'profile', status: 'ok', detail: `${settings.profile.value} (${from(settings.profile)})${settings.profileExists ? '' : ', not stored'}` });
  }
  add(
    key
      ? { name: 'API key', status: 'ok', detail: `${mask(key.value)} (${from(key)})` }
      : settings.apiKeyRefused
        ? // The profile has a key that cannot be used here (a keychain out of reach, a store others can write to): say why.
          { name: 'API key', status: 'fail', detail: settings.apiKeyRefused.message, ...(settings.apiKeyRefused.hints[0] ? { fix: settings.apiKeyRefused.hints[0] } : {}), exitCode: 3 }
        : { name: 'API key', status: 'fail', detail: settings.emptyKeyVariable && settings.profile.source !== 'flag' ? `none: ${settings.emptyKeyVariable} is set but empty (in CI: a secret this job cannot read?)` : 'none', fix: 'run `mailroom login`, or set MAILROOM_API_KEY, or pass --api-key (try --sandbox without an account)', exitCode: 3 },
  );
  const clearText = ctx.globals.allowHttp ? undefined : clearTextProblem(settings.baseUrl.value);
  add(
    clearText
      ? { name: 'base URL', status: 'warn', detail: `${settings.baseUrl.value} (${from(settings.baseUrl)}): ${clearText.replace(/^the API key goes/, 'the key goes')}`, fix: 'use https://, or pass --allow-http if this network is yours' }
      : { name: 'base URL', status: 'ok', detail: `${settings.baseUrl.value} (${from(settings.baseUrl)})` },
  );
  const ws = settings.workspace;
  add(
    ws
      ? { name: 'workspace', status: 'ok', detail: `${ws.value} (${from(ws)})` }
      : { name: 'workspace', status: 'warn', detail: 'none (only keys commands need one)', fix: 'pass --workspace, set MAILROOM_WORKSPACE, or `mailroom config set workspace wrk_…`' },
  );
  if (!identityOnly) add(await proxyCheck(ctx, settings.baseUrl.value));

  let identity: Identity | undefined;
  if (key && !unknownProfile) {
    const started = Date.now();
    try {
      const res = await (await ctx.api()).request({ method: 'GET', path: paths.keyCheck(), signal: ctx.signal });
      const ms = Date.now() - started;
      identity = res.body && typeof res.body === 'object' ? (res.body as Identity) : {};
      if (!identityOnly) add({ name: 'reachable', status: 'ok', detail: `HTTP ${res.status} in ${ms} ms${settings.baseUrl.value.startsWith('https:') ? ', TLS verified' : ''}` });
      add({ name: 'key check', status: 'ok', detail: [identity.status, identity.displayName, identity.role, ws ? `workspace ${ws.value}` : undefined].filter((v) => v !== undefined && v !== null).join(', ').replace(/^([^,]+), /, '$1: ') });
      if (!identityOnly) add(clockCheck(res.headers.date, started, Date.now()));
    } catch (err) {
      if (err instanceof ApiError) {
        if (!identityOnly) add({ name: 'reachable', status: 'ok', detail: `HTTP ${err.status} in ${Date.now() - started} ms` });
        add({ name: 'key check', status: 'fail', detail: `HTTP ${err.status}: ${err.message}`, fix: err.kind === 'authentication' ? authHint(settings) : (err.hints[0] ?? 'see the message'), exitCode: exitCodeOf(err) });
      } else {
        const e = err as { message?: string; hints?: string[] };
        add({ name: 'reachable', status: 'fail', detail: e.message ?? String(err), fix: [...transportHints(err), ...(e.hints ?? [])][0] ?? 'check --base-url and your network', exitCode: isMailroomError(err) ? exitCodeOf(err) : 6 });
      }
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
  return { checks, identity, settings, exitCode: failed?.exitCode ?? 0, ...(failed ? { failed } : {}) };
}

import { EXIT, EXIT_MEANINGS } from './exit-codes.js';
import { fitsBeside, formatItem, wrapWords } from './help-layout.js';

type Item = readonly [term: string, description: string];

function section(title: string, items: readonly Item[], width: number): string {
  const termWidth = Math.max(...items.map(([t]) => t.length));
  // One layout for the whole list: descriptions beside the names only if every one fits there.
  const under = !items.every(([, d]) => fitsBeside(termWidth, d, width));
  return `${title}\n${items.map(([t, d]) => formatItem(t, termWidth, d, width, under)).join('\n')}\n`;
}

const paragraph = (text: string, width: number) => `${wrapWords(text, width).join('\n')}\n`;

/** Every environment variable mailroom reads, by subject: `mailroom help environment`, the reference and the man page come from here. */
export const ENVIRONMENT = {
  intro:
    'Environment variables mailroom reads. Each setting is taken from the first of: its flag, the profile named by --profile, its environment variable, the profile named by MAILROOM_PROFILE (else the profile "default"), the built-in default. Under --profile the key and base URL variables are not read. `mailroom config list` shows which one won.',
  sections: [
    {
      title: 'Credentials and API',
      items: [
        ['MAILROOM_PROFILE', 'stored profile to use (--profile; default "default")'],
        ['MAILROOM_API_KEY', 'API key (--api-key); wins over SMASHSEND_API_KEY'],
        ['SMASHSEND_API_KEY', 'API key, the official SDK\'s variable (read when MAILROOM_API_KEY is unset)'],
        ['MAILROOM_BASE_URL', 'API host root (--base-url; default https://api.smashsend.com)'],
        ['MAILROOM_WORKSPACE', 'workspace of the keys commands (--workspace)'],
        ['MAILROOM_WEBHOOK_TOKEN', 'webhook signing token of webhooks listen, verify, replay and sample (--token)'],
      ],
    },
    {
      title: 'Files',
      items: [
        ['MAILROOM_CONFIG_DIR', 'directory of config.json, the profiles (default ~/.config/mailroom; see mailroom config path)'],
        ['MAILROOM_SECURE_STORAGE', 'where saved keys go: auto (the system keychain, else the config file with a warning), required (the keychain or nothing), off (the file); login --secure-storage, config set secure-storage'],
        ['XDG_CONFIG_HOME', 'parent of the config directory when MAILROOM_CONFIG_DIR is unset (Linux; default ~/.config)'],
        ['MAILROOM_STATE_DIR', 'directory of batch journals (default ~/.local/state/mailroom)'],
        ['XDG_STATE_HOME', 'parent of the state directory when MAILROOM_STATE_DIR is unset (default ~/.local/state)'],
        ['MAILROOM_CACHE_DIR', 'compiled code that check and batch keep to start faster, safe to delete (default ~/.cache/mailroom)'],
        ['XDG_CACHE_HOME', 'parent of the cache directory when MAILROOM_CACHE_DIR is unset (default ~/.cache)'],
      ],
    },
    {
      title: 'Output and network',
      items: [
        ['MAILROOM_DEBUG=1', 'log requests and responses to stderr, as --verbose (secrets redacted)'],
        ['NO_COLOR', 'no colour (as --no-color); FORCE_COLOR forces it'],
        ['HTTPS_PROXY, HTTP_PROXY', 'proxy for API requests (lower-case names too); loopback addresses are never proxied'],
        ['NO_PROXY', 'hosts that bypass the proxy'],
        ['MAILROOM_PACING=off', "send each request as soon as asked, not paced to the API's rate limit (for comparison; see docs/batch.md)"],
        ['BROWSER', 'command that sandbox open --browser runs (default: the system\'s opener)'],
      ],
    },
  ],
} as const satisfies { intro: string; sections: readonly { title: string; items: readonly Item[] }[] };

function environment(width: number): string {
  return [paragraph(ENVIRONMENT.intro, width), ...ENVIRONMENT.sections.map((s) => section(`${s.title}:`, s.items, width))].join('\n');
}

function exitCodes(width: number): string {
  // Codes padded to the widest (130): the names then start in one column.
  const codeWidth = Math.max(...Object.values(EXIT).map((code) => String(code).length));
  const items = Object.entries(EXIT).map(([kind, code]): Item => [`${String(code).padEnd(codeWidth)}  ${kind}`, EXIT_MEANINGS[kind as keyof typeof EXIT]]);
  return [paragraph('Exit codes: a contract with scripts, never renumbered.', width), section('Codes:', items, width)].join('\n');
}

/** `mailroom help <topic>`: subjects that belong to no one command. */
export const HELP_TOPICS: Record<string, (width: number) => string> = { environment, 'exit-codes': exitCodes };

/** `0 ok, 1 unexpected, …`: the root help's one-line summary of the same map. */
export const exitCodeLine = (): string =>
  Object.entries(EXIT)
    .map(([kind, code]) => `${code} ${kind}`)
    .join(', ');

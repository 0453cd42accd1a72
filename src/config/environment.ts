/**
 * The environment variables that set the API key, base URL and workspace when nothing closer does:
 * the CLI's settings (src/config/settings.ts, after flags and --profile) and the library's
 * `new Mailroom()` (src/library/connection.ts, after its options) read them through here, so both
 * read the same names the same way (docs/configuration.md, docs/library.md).
 */
export const SETTING_VARIABLES = {
  apiKey: ['MAILROOM_API_KEY', 'SMASHSEND_API_KEY'],
  baseUrl: ['MAILROOM_BASE_URL'],
  workspace: ['MAILROOM_WORKSPACE'],
} as const satisfies Record<string, readonly string[]>;

export type Env = Readonly<Record<string, string | undefined>>;

/** The setting's value in `env` and the variable it came from: the first of its variables set and not empty. */
export function fromEnvironment(env: Env, setting: keyof typeof SETTING_VARIABLES): { name: string; value: string } | undefined {
  for (const name of SETTING_VARIABLES[setting]) {
    const value = env[name];
    if (value) return { name, value };
  }
  return undefined;
}

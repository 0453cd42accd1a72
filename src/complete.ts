import { readStoredConfig } from './config/file.js';
import { configFile } from './config/paths.js';
import { PROFILE_NAME } from './config/store.js';

/**
 * `mailroom __complete profiles`: the stored profile names, one per line, for the shell completion
 * scripts to offer after --profile. A build entry of its own (dist/complete.js, started by
 * bin/mailroom.js), so a TAB reads the config file and loads nothing else of the CLI. Prints nothing
 * rather than an error: a broken store must not break the shell's completion.
 */
function completeValues(what: string | undefined, env: Readonly<Record<string, string | undefined>>): string[] {
  if (what !== 'profiles') return [];
  try {
    return Object.keys(readStoredConfig(configFile(env)).profiles)
      .filter((name) => PROFILE_NAME.test(name))
      .sort();
  } catch {
    return [];
  }
}

const names = completeValues(process.argv[3], process.env);
// Node ends this process once the write is done (nothing calls process.exit), so a slow reader gets it
// whole; a shell that stops listening is not an error worth a stack trace at a TAB.
if (names.length) process.stdout.on('error', () => undefined).write(`${names.join('\n')}\n`);

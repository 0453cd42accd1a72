import { spawn } from 'node:child_process';
import { MailroomError } from '../../errors.js';

/** The platform's "open this URL" command; $BROWSER (a command name) wins, as on most Unix tools. */
function opener(url: string, env: Readonly<Record<string, string | undefined>>): [string, string[]] {
  const browser = env.BROWSER?.trim();
  if (browser) return [browser, [url]];
  if (process.platform === 'darwin') return ['open', [url]];
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

/** Starts the browser and returns once it started (not once it closed); a missing opener is an error. */
export async function openInBrowser(url: string, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const [command, args] = opener(url, env);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, shell: false });
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(new MailroomError('unexpected', `cannot open a browser with ${command}: ${err.code ?? err.message}`, { hints: ['open the URL above yourself, or set BROWSER'] })),
    );
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

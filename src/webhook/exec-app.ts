import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';

/**
 * The app's watchdog, a process of its own (argv: the app's process group, the grace in ms). It reads
 * a pipe whose other end only the listener holds and never writes: the end of that pipe is the end
 * of the listener, however it ended (SIGKILL, a crash, an exit that ran no cleanup), since the
 * system closes a dead process's files. Then it stops the app's group as the listener would: SIGTERM,
 * SIGKILL after the grace. Works wherever Node does (Linux has PR_SET_PDEATHSIG, macOS nothing like
 * it, and Node offers neither).
 */
const WATCHDOG = `
const group = -Number(process.argv[1]);
const graceMs = Number(process.argv[2]);
const signal = (s) => { try { process.kill(group, s); return true; } catch { return false; } };
const stop = () => {
  if (!signal('SIGTERM')) process.exit(0);
  const until = Date.now() + graceMs;
  setInterval(() => {
    if (!signal(0)) process.exit(0);
    if (Date.now() >= until) { signal('SIGKILL'); process.exit(0); }
  }, 50);
};
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
`;

/** The app `webhooks listen --exec` started: how it ended, and how to stop it. */
export interface ExecutedApp {
  /** Resolves when it has exited: its exit code, or the signal that ended it, or why it could not start. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: string }>;
  /** SIGTERM to its process group, SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Starts `command` through the shell with the signing token in its environment, in a process group
 * of its own: Ctrl-C in the terminal reaches the listener only, and the listener stops the app (and
 * whatever the shell started) after its last forward. A listener that dies without doing so
 * (SIGKILL) takes the app with it all the same: its watchdog (above) stops the group, SIGKILL after
 * `graceMs`. The app's output goes to `out` (the listener's stderr, so stdout stays the listener's
 * deliveries), line by line.
 */
export function execApp(command: string, env: Readonly<Record<string, string | undefined>>, out: Writable, graceMs = 5_000): ExecutedApp {
  const child = spawn(command, { shell: true, detached: true, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  // Detached too: a Ctrl-C in the terminal is the listener's to handle, not the watchdog's.
  const watchdog =
    child.pid === undefined ? undefined : spawn(process.execPath, ['-e', WATCHDOG, String(child.pid), String(graceMs)], { detached: true, env: {}, stdio: ['pipe', 'ignore', 'ignore'] });
  if (watchdog) {
    watchdog.on('error', () => undefined);
    watchdog.stdin?.on('error', () => undefined);
    // Neither keeps the listener running.
    watchdog.unref();
    (watchdog.stdin as Socket | null)?.unref();
  }
  // Once the app has ended, its watchdog has nothing to guard (and must not signal a group id reused since).
  const dismiss = () => watchdog?.kill('SIGKILL');
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      if (lines.length > 0) out.write(`${lines.join('\n')}\n`);
    });
    stream.on('end', () => {
      if (partial !== '') out.write(`${partial}\n`);
      partial = '';
    });
  }
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: string }>((resolve) => {
    child.once('error', (err) => {
      done = true;
      dismiss();
      resolve({ code: null, signal: null, error: err.message });
    });
    // 'close', not 'exit': the app's last lines are written before anyone reports its end.
    child.once('close', (code, signal) => {
      done = true;
      dismiss();
      resolve({ code, signal });
    });
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  return {
    exited,
    async stop(graceMs) {
      if (done) return;
      signalGroup('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
      if ((await Promise.race([exited, late])) === 'late') signalGroup('SIGKILL');
      clearTimeout(timer);
      await exited;
    },
  };
}

import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';

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
 * whatever the shell started) after its last forward. The app's output goes to `out` (the
 * listener's stderr, so stdout stays the listener's deliveries), line by line.
 */
export function execApp(command: string, env: Readonly<Record<string, string | undefined>>, out: Writable): ExecutedApp {
  const child = spawn(command, { shell: true, detached: true, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
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
      resolve({ code: null, signal: null, error: err.message });
    });
    // 'close', not 'exit': the app's last lines are written before anyone reports its end.
    child.once('close', (code, signal) => {
      done = true;
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

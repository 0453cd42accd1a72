import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { sandboxBanner } from '../../src/commands/shared/sandbox-banner.js';
import { startInProcess } from '../helpers/context.js';

const facts = { baseUrl: 'http://127.0.0.1:5025', workspaceId: 'wrk_Nxd2tMZwtewWn47EYT0Q', apiKey: 'sk_live_uS53vP7RJo7j3SAaAY85xb34mYVq1sgA', data: 'sandbox-state.json' };

/** The banner's export lines run by a shell as pasted: what the three variables then hold. */
function pasted(lines: string[]): string {
  const from = lines.indexOf('Point mailroom (or any script) at it:');
  const to = lines.indexOf('Press Ctrl-C to stop.');
  const script = `${lines.slice(from + 1, to).join('\n')}\nprintf '%s %s %s' "$MAILROOM_BASE_URL" "$MAILROOM_API_KEY" "$MAILROOM_WORKSPACE"`;
  return spawnSync('sh', ['-c', script], { encoding: 'utf8' }).stdout;
}

describe('the sandbox banner fits the terminal it is shown on', () => {
  it.each([40, 50, 80, 120])('%i columns: no line wider; the key, URL and workspace whole; its exports set all three when pasted', (width) => {
    const lines = sandboxBanner(facts, width);
    for (const line of lines) expect(line.length, `${line}|`).toBeLessThanOrEqual(width);
    expect(lines.join('\n')).toContain(facts.apiKey);
    expect(lines.join('\n')).toContain(facts.workspaceId);
    expect(pasted(lines)).toBe(`${facts.baseUrl} ${facts.apiKey} ${facts.workspaceId}`);
  });

  it('not a terminal: the long form, one export line (scripts and tests read it)', () => {
    const lines = sandboxBanner(facts, undefined);
    expect(lines).toContain(`  export MAILROOM_BASE_URL=${facts.baseUrl} MAILROOM_API_KEY=${facts.apiKey} MAILROOM_WORKSPACE=${facts.workspaceId}`);
    expect(lines).toContain(`  inbox      ${facts.baseUrl}/  (mailroom sandbox emails, sandbox open --browser)`);
    expect(pasted(lines)).toBe(`${facts.baseUrl} ${facts.apiKey} ${facts.workspaceId}`);
  });

  it('mailroom sandbox on a 40-column terminal prints it so', async () => {
    const command = startInProcess(['sandbox', '--port', '0'], { env: { NO_COLOR: '1' }, tty: { stderr: true }, columns: 40 });
    try {
      await command.waitForErrLine((l) => l === 'Press Ctrl-C to stop.', 20_000);
      const lines = command.stderr().trimEnd().split('\n');
      for (const line of lines) expect(line.length, `${line}|`).toBeLessThanOrEqual(40);
      expect(lines[0]).toBe('mailroom sandbox listening on');
    } finally {
      await command.stop();
    }
  });
});

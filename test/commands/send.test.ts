import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { register } from '../../src/commands/send.js';
import { fakeContext } from '../helpers/context.js';

/** Parses a `send` command line with a fake context; returns what it wrote. No HTTP: --dry-run only. */
async function send(argv: string[], stdin = '') {
  const { ctx, stdout, stderr } = fakeContext({ input: stdin });
  const program = new Command('mailroom').exitOverride().option('--json').option('-q, --quiet');
  register(program, ctx);
  program.commands.forEach((c) => c.exitOverride());
  await program.parseAsync(['node', 'mailroom', 'send', ...argv, '--dry-run']);
  await new Promise((resolve) => setImmediate(resolve));
  return { stdout: stdout(), stderr: stderr() };
}

describe('send: argv to request body (--dry-run, fake context)', () => {
  it('maps every flag and repeatable flag to its field, in a stable order', async () => {
    const { stdout, stderr } = await send([
      '--from', 'ops@example.com', '--from-name', 'Ops', '--to', 'a@example.com', '--subject', 'S', '--html', '<p>h</p>',
      '--text', 't', '--preview-text', 'p', '--reply-to', 'r@example.com', '--property', 'a=1', '--property', 'b=2',
      '--no-track-clicks', '--track-opens', '--group-by', 'g', '--idempotency-key', 'k',
    ]);
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({
      from: 'ops@example.com', fromName: 'Ops', to: 'a@example.com', subject: 'S', html: '<p>h</p>', text: 't', previewText: 'p',
      replyTo: 'r@example.com', contactProperties: { a: '1', b: '2' }, settings: { trackClicks: false, trackOpens: true }, groupBy: 'g', idempotencyKey: 'k',
    });
  });

  it('templated: --var repeatable over --vars; variables {} when none', async () => {
    const a = JSON.parse((await send(['--template', 'welcome', '--to', 'a@example.com', '--vars', '{"x":1,"y":"old"}', '--var', 'y=new', '--var', 'z=3'])).stdout);
    expect(a.variables).toEqual({ x: 1, y: 'new', z: '3' });
    expect(a.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const b = JSON.parse((await send(['--template', 'welcome', '--to', 'a@example.com'])).stdout);
    expect(b.variables).toEqual({});
  });

  it('--file - from stdin with flags over it; -q prints nothing', async () => {
    const payload = JSON.stringify({ from: 'ops@example.com', to: 'old@example.com', subject: 'S', html: 'h', idempotencyKey: 'file-key' });
    expect(JSON.parse((await send(['--file', '-', '--to', 'new@example.com'], payload)).stdout)).toMatchObject({ to: 'new@example.com', idempotencyKey: 'file-key' });
    expect((await send(['--file', '-', '-q'], payload)).stdout).toBe('');
  });

  it('bad input throws a usage error before anything else', async () => {
    await expect(send(['--to', 'a@example.com', '--template', 'w', '--html', 'x'])).rejects.toMatchObject({ kind: 'validation', message: '--html cannot be used with --template (a templated email takes --to, --var, --vars and the common flags)' });
  });
});

import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

// `send --react` needs esbuild, react, react-dom and @react-email/render: optional peers, so an install
// without them must say exactly what to install, and an install with them (next to mailroom or in the
// component's own project) must render.
const PEERS = 'esbuild react react-dom @react-email/render';
const send = ['send', '--react', 'Email.tsx', '--props', '{"name":"Ada"}', '--from', 'ops@example.com', '--to', 'ada@example.com', '--subject', 'Hi', '--dry-run', '--json'];

describe('send --react in an install without the React stack', () => {
  let prefix: string;
  let project: string;
  let bin: string;
  beforeAll(() => {
    prefix = mkdtempSync(join(tmpdir(), 'mailroom-prefix-'));
    const pkg = join(prefix, 'lib', 'node_modules', 'mailroom-cli');
    mkdirSync(pkg, { recursive: true });
    for (const f of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, f), join(pkg, f), { recursive: true });
    bin = join(pkg, 'bin', 'mailroom.js');
    project = mkdtempSync(join(tmpdir(), 'mailroom-emails-'));
    cpSync(join(ROOT, 'test', 'fixtures', 'react', 'Welcome.tsx'), join(project, 'Email.tsx'));
  });
  afterAll(() => {
    rmSync(prefix, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it('exits 2 naming what is missing and the exact commands that install it', async () => {
    const r = await runCli(send, { bin, cwd: project });
    expect(r.stderr).toBe(
      [
        'mailroom: --react needs esbuild, react, react-dom and @react-email/render, which are not installed',
        `  in the component's project: npm install --save-dev ${PEERS}`,
        `  or next to mailroom: npm install -g --prefix ${prefix} --ignore-scripts ${PEERS}`,
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(2);
    // Under --json the error is also one JSON document on stdout.
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { kind: 'usage', exitCode: 2, message: r.stderr.split('\n')[0]!.replace(/^mailroom: /, '') } });
  });

  it('with only esbuild installed, names the three packages still missing', async () => {
    const global = join(prefix, 'lib', 'node_modules');
    for (const name of ['esbuild', '@esbuild']) symlinkSync(join(ROOT, 'node_modules', name), join(global, name));
    try {
      const r = await runCli(send, { bin, cwd: project });
      expect(r.stderr.split('\n')[0]).toBe('mailroom: --react needs esbuild, react, react-dom and @react-email/render: react, react-dom and @react-email/render are not installed');
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout)).toMatchObject({ error: { kind: 'usage', exitCode: 2 } });
    } finally {
      for (const name of ['esbuild', '@esbuild']) rmSync(join(global, name));
    }
  });

  it("renders with the stack installed in the component's project", async () => {
    symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'));
    try {
      const r = await runCli(send, { bin, cwd: project });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).html).toContain('<h1>Welcome, <!-- -->Ada<!-- -->!</h1>');
    } finally {
      rmSync(join(project, 'node_modules'));
    }
  });

  it('renders with the stack installed next to mailroom (npm install -g --prefix)', async () => {
    const global = join(prefix, 'lib', 'node_modules');
    const linked = readdirSync(join(ROOT, 'node_modules')).filter((name) => !name.startsWith('.'));
    for (const name of linked) symlinkSync(join(ROOT, 'node_modules', name), join(global, name));
    try {
      const r = await runCli(send, { bin, cwd: project });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).html).toContain('<h1>Welcome, <!-- -->Ada<!-- -->!</h1>');
    } finally {
      for (const name of linked) rmSync(join(global, name));
    }
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REACT_PEERS } from '../../src/input/react.js';
import { ROOT } from '../helpers/cli.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;

describe('package manifest', () => {
  it('is published as mailroom-cli (the npm name "mailroom" is someone else\'s) with the mailroom command', () => {
    expect(pkg.name).toBe('mailroom-cli');
    expect(pkg.bin).toEqual({ mailroom: 'bin/mailroom.js' });
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { name: string; packages: Record<string, { name?: string }> };
    expect([lock.name, lock.packages['']?.name]).toEqual(['mailroom-cli', 'mailroom-cli']);
  });

  it('has a LICENSE matching its license field, and no invented repository URLs', () => {
    expect(pkg.license).toBe('MIT');
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(license).toMatch(/^Copyright \(c\) \d{4} the mailroom authors$/m);
    expect(license).toContain('Permission is hereby granted, free of charge');
    for (const field of ['repository', 'homepage', 'bugs']) expect(pkg).not.toHaveProperty(field);
  });

  it('README installs mailroom-cli, never the unrelated "mailroom" package', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm install -g mailroom-cli');
    expect(readme).not.toMatch(/npm (i|install) (-g )?mailroom(\s|$)|\.\/mailroom-\d/);
  });

  it('installs nothing but itself: the CLI is bundled into dist/, the React stack is an optional peer', () => {
    expect(pkg).not.toHaveProperty('dependencies');
    const peers = pkg.peerDependencies as Record<string, string>;
    expect(Object.keys(peers).sort()).toEqual([...REACT_PEERS].sort());
    expect(pkg.peerDependenciesMeta).toEqual(Object.fromEntries(REACT_PEERS.map((name) => [name, { optional: true }])));
    // Every peer is also a devDependency, so the checkout's own tests render React emails.
    for (const name of REACT_PEERS) expect(pkg.devDependencies).toHaveProperty(name);
  });

  it('has no install scripts: installing the tarball runs nothing (npm warns about unreviewed ones)', () => {
    const scripts = pkg.scripts as Record<string, string>;
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts).not.toHaveProperty(hook);
    // The checkout still builds on `npm ci` (the root project's `dependencies` hook) and on `npm pack`.
    expect(scripts.dependencies).toBe('node scripts/build.mjs');
    expect(scripts.prepack).toBe('node scripts/build.mjs');
  });

  it('ships the licenses of the packages bundled into dist/ (they are not installed beside it)', () => {
    const notices = readFileSync(join(ROOT, 'dist', 'THIRD-PARTY-LICENSES.txt'), 'utf8');
    for (const name of ['commander', 'undici', 'zod', 'conf', 'fastify', 'chalk', 'csv-parse']) expect(notices).toMatch(new RegExp(`^${name}@\\d+\\.\\d+\\.\\d+ \\(MIT\\)$`, 'm'));
  });

  it('packs LICENSE, README, bin and dist', () => {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' })) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(packed!.filename).toMatch(/^mailroom-cli-\d+\.\d+\.\d+\.tgz$/);
    const paths = packed!.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'bin/mailroom.js', 'dist/main.js', 'dist/main.js.map', 'dist/complete.js', 'dist/help.json', 'dist/THIRD-PARTY-LICENSES.txt']));
    // npm itself starts in about a second idle but took over 15 s on a loaded machine.
  }, 90_000);
});

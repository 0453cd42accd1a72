import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, loadProgram } from '../src/program.js';
import { fakeContext } from './helpers/context.js';

// buildProgram registers the command definitions loaded first (they load on demand).
await loadProgram();

// `mailroom` is `node bin/mailroom.js …`, and Node 20 reads some of its own options from anywhere
// on the command line, after the script's name too: `mailroom webhooks listen --env-file x` would
// end in "node: x: not found" (exit 9) before mailroom runs. So no option of mailroom's whole
// command tree may be one Node takes there, and any name Node also has must be shown harmless.

/** Every option name of the whole command tree (Commander's help option included). */
function optionNames(): string[] {
  const names = new Set<string>(['--help', '-h']);
  const walk = (cmd: Command) => {
    for (const option of cmd.options) for (const name of [option.long, option.short]) if (name) names.add(name);
    cmd.commands.forEach(walk);
  };
  walk(buildProgram(fakeContext().ctx));
  return [...names].sort();
}

/** Node's own option names: those NODE_OPTIONS takes, and every one `node --help` lists. */
function nodeOptionNames(): Set<string> {
  const help = spawnSync(process.execPath, ['--help'], { encoding: 'utf8' }).stdout;
  return new Set([...process.allowedNodeEnvironmentFlags, ...(help.match(/(?<![\w-])--?[a-z][\w-]*/g) ?? [])]);
}

describe("mailroom's option names and Node's", () => {
  it('the names both have are only those Node reads before the script alone (--help, --version, -i and their short forms)', () => {
    const node = nodeOptionNames();
    expect(node.has('--env-file')).toBe(true);
    const shared = optionNames().filter((name) => node.has(name) || node.has(name.replace(/^--no-/, '--')));
    // -i is `api -i` (gh's --include); Node's -i (--interactive) is read before the script only,
    // and the test below shows it reaching mailroom untouched.
    expect(shared).toEqual(['--help', '--version', '-h', '-i', '-v']);
  });

  it('each name (and --env-file, the one that bit) reaches a script after its name untouched, or not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-node-opts-'));
    const script = join(dir, 'argv.js');
    writeFileSync(script, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n');
    const args = optionNames().flatMap((name) => [name, 'x']);
    const ours = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', cwd: dir });
    expect({ status: ours.status, stderr: ours.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(ours.stdout)).toEqual(args);
    // The probe sees a name Node takes: on Node 20, --env-file after the script still exits 9.
    if (process.versions.node.startsWith('20.')) expect(spawnSync(process.execPath, [script, '--env-file', 'x'], { encoding: 'utf8', cwd: dir }).status).toBe(9);
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../helpers/cli.js';

// Each shell is driven for real: bash calls the completion function as readline would (COMP_WORDS),
// zsh completes in an interactive shell on a pseudo-terminal (zpty) after TAB, fish answers
// `complete -C`. `mailroom` on PATH is this checkout's bin; the config store holds three profiles.

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
const SHELLS_DIR = join(ROOT, 'test', 'fixtures', 'shells');
const EVENTS = ['CONTACT_CREATED', 'CONTACT_UPDATED', 'CONTACT_UNSUBSCRIBED', 'CONTACT_RESUBSCRIBED', 'CONTACT_DELETED', 'WORKSPACE_TEAM_MEMBER_JOINED'];
const COMMANDS = ['send', 'batch', 'lint', 'check', 'keys', 'webhooks', 'sandbox', 'login', 'logout', 'config', 'profiles', 'api', 'completion', 'help', 'doctor', 'whoami'];

let home: string;
let work: string;
let env: Record<string, string>;
const scripts: Record<string, string> = {};

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mailroom-completion-'));
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'mailroom'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(bin, 'mailroom'), 0o755);
  const config = join(home, 'config');
  mkdirSync(config);
  writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { default: {}, staging: { workspace: 'wrk_1' }, 'ci-bot': {}, 'bad name': {} } }));
  work = join(home, 'work');
  mkdirSync(join(work, 'templates'), { recursive: true });
  writeFileSync(join(work, 'emails.ndjson'), '');
  writeFileSync(join(work, 'body.html'), '');
  env = { PATH: `${bin}:${process.env.PATH}`, HOME: home, MAILROOM_CONFIG_DIR: config, TERM: 'xterm', LANG: 'C.UTF-8' };
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runCli(['completion', shell]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    scripts[shell] = join(home, `mailroom.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const sorted = (words: string[]) => [...words].map((w) => w.replace(/\/$/, '')).sort();

/** What each shell offers for each line (the cursor at its end). */
type Completer = (lines: string[]) => string[][];

const bash: Completer = (lines) => {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const queries = lines.map((line) => {
    const words = line.split(' ');
    return `COMP_WORDS=(${words.map(q).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _mailroom; printf '%s\\n' __Q__ "\${COMPREPLY[@]}"`;
  });
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `source ${q(scripts.bash as string)}\n${queries.join('\n')}`], { cwd: work, env, encoding: 'utf8' });
  return out.split('__Q__\n').slice(1).map((block) => block.split('\n').filter(Boolean));
};

/** zsh: "match<TAB>display" lines per line; the displays carry the descriptions. */
function zshRaw(mode: 'fpath' | 'source', lines: string[]): string[][] {
  const out = execFileSync('zsh', ['-f', join(SHELLS_DIR, 'zsh-complete.zsh'), mode, scripts.zsh as string, ...lines], { cwd: work, env, encoding: 'utf8', timeout: 60_000 });
  return out.split(/^__LINE__ .*\n/m).slice(1).map((block) => block.split('\n').filter(Boolean));
}
// _sequence (comma lists) asks _describe twice; a user sees each match once.
const zsh: Completer = (lines) => zshRaw('fpath', lines).map((block) => [...new Set(block.map((l) => l.split('\t')[0] as string))]);

const fish: Completer = (lines) => {
  const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const out = execFileSync('fish', ['--no-config', '-c', `source ${q(scripts.fish as string)}\n${lines.map((l) => `echo __Q__; complete -C ${q(l)}`).join('\n')}`], { cwd: work, env, encoding: 'utf8' });
  return out.split('__Q__\n').slice(1).map((block) => block.split('\n').filter(Boolean).map((l) => l.split('\t')[0] as string));
};

const CASES: Array<[what: string, line: string, expected: string[]]> = [
  ['the commands, not flags, when nothing is typed', 'mailroom ', COMMANDS],
  ['a command', 'mailroom ke', ['keys']],
  ['the sub-commands of a group', 'mailroom keys ', ['list', 'create', 'update', 'delete', 'rotate']],
  ['a sub-command after a global option and its value', 'mailroom --profile staging webhooks ver', ['verify']],
  ['a flag', 'mailroom keys create --r', ['--role']],
  ['an enum option value (Commander choices)', 'mailroom batch --format ', ['json', 'ndjson', 'csv']],
  ['lint --fail-on severities', 'mailroom lint --fail-on ', ['error', 'warning', 'info']],
  ['roles', 'mailroom keys create --role ', ['API_USER', 'EDITOR', 'VIEWER']],
  ['event names after --event', 'mailroom webhooks create --event ', EVENTS],
  ['event names of sandbox trigger', 'mailroom sandbox trigger CONTACT_D', ['CONTACT_DELETED']],
  ['config keys', 'mailroom config set ', ['api-key', 'base-url', 'max-retries', 'secure-storage', 'timeout', 'workspace']],
  ['login --secure-storage modes', 'mailroom login --secure-storage ', ['auto', 'required', 'off']],
  ['the shells of completion', 'mailroom completion ', ['bash', 'zsh', 'fish']],
  ['files for the batch operand, and its journals command', 'mailroom batch ', ['emails.ndjson', 'body.html', 'templates', 'journals']],
  ['the words of batch journals', 'mailroom batch journals ', ['list', 'show', 'prune']],
  ['a flag of batch journals prune', 'mailroom batch journals prune --o', ['--older-than']],
  ['files after --html-file', 'mailroom send --html-file ', ['emails.ndjson', 'body.html', 'templates']],
  ['files for the emails lint checks', 'mailroom lint ', ['emails.ndjson', 'body.html', 'templates']],
  ['no local file names for the API path of api', 'mailroom api GET ', []],
  ['files after --report, by prefix', 'mailroom batch emails.ndjson --report em', ['emails.ndjson']],
  ['profile names from the config store', 'mailroom --profile ', ['ci-bot', 'default', 'staging']],
  ['a profile name after a command', 'mailroom send --profile st', ['staging']],
];

const LIST: [string, string, string[]] = ['comma lists of events', 'mailroom webhooks listen --events CONTACT_CREATED,CONTACT_D', ['CONTACT_CREATED,CONTACT_DELETED']];

for (const [shell, complete] of [['bash', bash], ['zsh', zsh], ['fish', fish]] as const) {
  const installed = has(shell);
  if (!installed) console.warn(`mailroom completion: ${shell} is not installed, its tests are skipped (apt-get install ${shell}; .ci/run installs it)`);
  describe.skipIf(!installed)(`${shell} completion${installed ? '' : ' (skipped: not installed)'}`, () => {
    let results: string[][];
    beforeAll(() => {
      results = complete([...CASES.map(([, line]) => line), LIST[1]]);
    });
    it.each(CASES.map((c, i) => [...c, i] as const))('%s: %j', (_what, _line, expected, i) => {
      expect(sorted(results[i] as string[])).toEqual(sorted(expected));
    });
    it(`${LIST[0]}: ${LIST[1]}`, () => {
      // zsh completes the word after the comma (and leaves out events already listed).
      expect(results[CASES.length]).toEqual(shell === 'zsh' ? ['CONTACT_DELETED'] : LIST[2]);
    });
  });
}

describe('bash specifics', () => {
  it('completes the value of --option=value (bash splits it into --option, =, value)', () => {
    const reply = (words: string[]) =>
      execFileSync('bash', ['--norc', '-c', `source ${scripts.bash}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mailroom; printf '%s\\n' "\${COMPREPLY[@]}"`], { cwd: work, env, encoding: 'utf8' })
        .split('\n')
        .filter(Boolean);
    expect(reply(['mailroom', 'batch', '--format', '='])).toEqual(['json', 'ndjson', 'csv']);
    expect(reply(['mailroom', 'batch', '--format', '=', 'nd'])).toEqual(['ndjson']);
    expect(reply(['mailroom', 'send', '--html-file', '=', 'bo'])).toEqual(['body.html']);
    expect(reply(['mailroom', 'config', 'set', 'api-key', ''])).toEqual([]);
  });
});

describe.skipIf(!has('zsh'))('zsh specifics', () => {
  it('offers commands and options with their descriptions', () => {
    const [commands, options] = zshRaw('fpath', ['mailroom ', 'mailroom keys create --']);
    expect(commands).toContainEqual(expect.stringMatching(/^keys\tkeys +-- list, create, update, delete and rotate workspace API keys$/));
    expect(options).toContainEqual(expect.stringMatching(/^--role\t--role +-- role of the key$/));
  });

  it('sourced into a shell without compinit: no error, and TAB completes', () => {
    const sourced = spawnSync('zsh', ['-f', '-c', `source ${scripts.zsh}`], { cwd: work, env, encoding: 'utf8' });
    expect({ status: sourced.status, stderr: sourced.stderr, stdout: sourced.stdout }).toEqual({ status: 0, stderr: '', stdout: '' });
    expect(zshRaw('source', ['mailroom keys cr']).map((b) => b.map((l) => l.split('\t')[0]))).toEqual([['create']]);
  });
});

describe.skipIf(!has('fish'))('fish specifics', () => {
  it('describes commands and options', () => {
    const out = execFileSync('fish', ['--no-config', '-c', `source ${scripts.fish}; complete -C 'mailroom ke'; complete -C 'mailroom keys create --ro'`], { cwd: work, env, encoding: 'utf8' });
    expect(out.split('\n').filter(Boolean)).toEqual(['keys\tlist, create, update, delete and rotate workspace API keys', '--role\trole of the key']);
  });
});

describe('mailroom __complete profiles', () => {
  it('prints the valid profile names, sorted, and loads none of the CLI', () => {
    const r = spawnSync(process.execPath, ['--import', join(ROOT, 'test', 'fixtures', 'record-modules.mjs'), BIN, '__complete', 'profiles'], {
      env: { ...env, MAILROOM_TEST_MODULES_FILE: join(home, 'modules.txt') },
      encoding: 'utf8',
    });
    expect({ stdout: r.stdout, stderr: r.stderr, status: r.status }).toEqual({ stdout: 'ci-bot\ndefault\nstaging\n', stderr: '', status: 0 });
    const loaded = execFileSync('cat', [join(home, 'modules.txt')], { encoding: 'utf8' }).split('\n').filter((u) => u.includes('/dist/'));
    expect(loaded.every((u) => u.endsWith('/dist/complete.js') || u.includes('/dist/chunks/'))).toBe(true);
    expect(loaded.some((u) => u.endsWith('/dist/main.js'))).toBe(false);
  });

  it('prints nothing for a broken store or an unknown request', () => {
    const broken = mkdtempSync(join(tmpdir(), 'mailroom-cfg-'));
    try {
      writeFileSync(join(broken, 'config.json'), '{"profiles": ');
      for (const args of [['__complete', 'profiles'], ['__complete', 'nope']]) {
        const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...env, MAILROOM_CONFIG_DIR: broken }, encoding: 'utf8' });
        expect({ stdout: r.stdout, stderr: r.stderr, status: r.status }).toEqual({ stdout: '', stderr: '', status: 0 });
      }
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});

import { fstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { usageError } from '../errors.js';

/** A file a command reads or writes, as the user named it on the command line. */
export interface NamedPath {
  flag: string;
  /** As given: relative to the working directory, or `-` for stdin/stdout. */
  path: string;
}

export interface OutputCheck {
  cwd: string;
  /** Files read (the input, --html-file, --config...): never to be written. */
  inputs: NamedPath[];
  /** Files written, in the order they are opened. */
  outputs: NamedPath[];
  /** Outputs that may be stdout (`-`, /dev/stdout, or the file stdout is redirected to). */
  stdoutAllowed?: ReadonlySet<string>;
  /** The process's own streams: their files count as the input/output they carry. */
  io?: { in?: Readable; out?: Writable };
}

/** What each output flag turned out to be: a path to open, or stdout. */
export type OutputTargets = Map<string, { path: string } | 'stdout'>;

interface Identity {
  key: string;
  /** Character devices (/dev/null, a terminal) lose nothing when two outputs share them. */
  device: boolean;
}

const fdOf = (stream: unknown): number | undefined => {
  const fd = (stream as { fd?: unknown } | undefined)?.fd;
  return typeof fd === 'number' ? fd : undefined;
};

const identityOf = (s: Stats): Identity => ({ key: `${s.dev}:${s.ino}`, device: s.isCharacterDevice() });

/**
 * The file a path names: device and inode when it exists (so a symlink, `./x` and a hard link are
 * the same file), else the real path of its directory plus its name.
 */
function identify(absolute: string): Identity {
  try {
    return identityOf(statSync(absolute));
  } catch {
    let dir = dirname(absolute);
    try {
      dir = realpathSync(dir);
    } catch {
      // A missing directory: the lexical path is all there is.
    }
    return { key: join(dir, basename(absolute)), device: false };
  }
}

function streamIdentity(stream: unknown): Identity | undefined {
  const fd = fdOf(stream);
  if (fd === undefined) return undefined;
  try {
    return identityOf(fstatSync(fd));
  } catch {
    return undefined;
  }
}

/**
 * Refuses, before anything is opened for writing, an output that is an input, another output, or
 * stdout where stdout cannot take it: writing it would destroy the input or interleave two outputs.
 * Returns where each output goes.
 */
export function checkOutputs(c: OutputCheck): OutputTargets {
  // An unset shell variable: '' would resolve to the current directory, or read as "no file".
  for (const { flag, path } of [...c.inputs, ...c.outputs]) if (path === '') throw usageError(`${flag}: the file name is empty`);
  const targets: OutputTargets = new Map();
  const stdout = c.io ? streamIdentity(c.io.out) : undefined;
  const seen: Array<{ flag: string; path: string; id: Identity; input: boolean }> = [];
  for (const input of c.inputs) {
    if (input.path === '-') {
      const id = c.io ? streamIdentity(c.io.in) : undefined;
      if (id && !id.device) seen.push({ flag: input.flag, path: 'stdin', id, input: true });
      continue;
    }
    seen.push({ flag: input.flag, path: input.path, id: identify(resolve(c.cwd, input.path)), input: true });
  }
  let stdoutTaken: string | undefined;
  for (const output of c.outputs) {
    const absolute = output.path === '-' ? undefined : resolve(c.cwd, output.path);
    const id = absolute === undefined ? undefined : identify(absolute);
    const isStdout = absolute === undefined || (stdout !== undefined && id !== undefined && id.key === stdout.key);
    if (isStdout) {
      if (!c.stdoutAllowed?.has(output.flag)) {
        throw usageError(`${output.flag} ${output.path} is stdout: ${output.flag} needs a file`);
      }
      if (stdoutTaken) {
        throw usageError(`${output.flag} ${output.path} is the same file as ${stdoutTaken} (stdout): both write to stdout`, ['give one of them a file']);
      }
      stdoutTaken = output.flag;
      targets.set(output.flag, 'stdout');
      continue;
    }
    const clash = seen.find((s) => s.id.key === id!.key && !(s.id.device && id!.device && !s.input));
    if (clash) {
      const what = clash.input ? (clash.flag === 'input' ? 'is the input' : `is the input given to ${clash.flag}`) : `is the same file as ${clash.flag}`;
      throw usageError(`${output.flag} ${output.path} ${what}${clash.path === output.path ? '' : ` (${clash.path})`}: writing it would destroy ${clash.input ? 'what is read' : 'the other'}`, [
        `give ${output.flag} another file`,
      ]);
    }
    seen.push({ flag: output.flag, path: output.path, id: id!, input: false });
    targets.set(output.flag, { path: absolute! });
  }
  return targets;
}

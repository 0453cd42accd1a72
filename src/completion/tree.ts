import type { Argument, Command, Option } from 'commander';

/** What the word after an option (or an operand) can be. */
export type ValueSpec =
  | { kind: 'files' }
  | { kind: 'values'; values: Choice[] }
  /** Comma-separated values (`--events A,B`). */
  | { kind: 'list'; values: Choice[] }
  /** Profile names in the config store, read when TAB is pressed. */
  | { kind: 'profiles' }
  /** Anything: nothing to complete. */
  | { kind: 'text' };

export interface Choice {
  name: string;
  description?: string;
}

export interface OptionSpec {
  /** `--long` first, then `-s`. */
  flags: string[];
  description: string;
  /** Absent for a flag that takes no value. */
  value?: ValueSpec;
  repeatable: boolean;
}

export interface ArgSpec {
  name: string;
  description: string;
  required: boolean;
  variadic: boolean;
  value: ValueSpec;
}

export interface NodeSpec {
  /** Command words after `mailroom`: [] for the root, ['keys', 'list'] for `mailroom keys list`. */
  path: string[];
  description: string;
  subcommands: NodeSpec[];
  options: OptionSpec[];
  args: ArgSpec[];
}

/** Value sets the command tree does not carry itself (the commands validate them in their own words). */
export interface KnownValues {
  events: Choice[];
  roles: Choice[];
  /** `mailroom help <topic>`. */
  helpTopics: string[];
}

/**
 * The command tree as completion needs it, generated from Commander so it never goes stale. What a
 * value is comes from the tree: Commander choices; a placeholder naming a file (`<file>`, `<path|->`,
 * `<journal>`, `<file.tsx|jsx>`) completes files; an operand described as `a | b | c` completes
 * those; `<role>`, `<EVENT>` / `<event>`, `<E,...>` and `--profile <name>` complete the known values.
 */
export function completionTree(root: Command, known: KnownValues): NodeSpec {
  const walk = (cmd: Command, path: string[]): NodeSpec => ({
    path,
    description: cmd.description(),
    subcommands: visibleCommands(cmd).map((sub) => walk(sub, [...path, sub.name()])),
    options: [...cmd.options.filter((o) => !o.hidden).map((o) => optionSpec(o, known)), { flags: ['--help', '-h'], description: 'show help', repeatable: false }],
    args: cmd.registeredArguments.map((a) => argSpec(a, known)),
  });
  const tree = walk(root, []);
  const commands = tree.subcommands.map((c) => ({ name: c.path[0] as string, description: c.description }));
  tree.subcommands.push({
    path: ['help'],
    description: 'help for a command or a topic',
    subcommands: [],
    options: [],
    args: [{ name: 'topic', description: 'a command or a topic', required: false, variadic: false, value: { kind: 'values', values: [...commands, ...known.helpTopics.map((name) => ({ name, description: 'help topic' }))] } }],
  });
  return tree;
}

function visibleCommands(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
}

function optionSpec(o: Option, known: KnownValues): OptionSpec {
  const flags = [o.long, o.short].filter((f): f is string => Boolean(f));
  const takesValue = o.required || o.optional;
  const placeholder = /<([^>]+)>|\[([^\]]+)\]/.exec(o.flags);
  const name = placeholder?.[1] ?? placeholder?.[2] ?? '';
  return {
    flags,
    description: o.description,
    value: takesValue ? valueSpec(name, o.argChoices, known, o.long) : undefined,
    repeatable: o.variadic || /repeatable/.test(o.description),
  };
}

function argSpec(a: Argument, known: KnownValues): ArgSpec {
  return {
    name: a.name(),
    description: a.description,
    required: a.required,
    variadic: a.variadic,
    value: operandSpec(a, known),
  };
}

/**
 * An operand: `lint`'s `[inputs...]` are files; `api`'s `<path>` is an API path (/v1/webhooks), where
 * local file names would only mislead.
 */
function operandSpec(a: Argument, known: KnownValues): ValueSpec {
  if (a.name() === 'inputs') return { kind: 'files' };
  if (a.name() === 'path') return { kind: 'text' };
  return valueSpec(a.name(), a.argChoices, known, undefined, a.description);
}

const FILE_PLACEHOLDER = /^(path|file|journal)(\b|\.|$)/;

function valueSpec(placeholder: string, choices: string[] | undefined, known: KnownValues, flag?: string, description = ''): ValueSpec {
  if (choices?.length) return { kind: 'values', values: choices.map((name) => ({ name })) };
  if (flag === '--profile') return { kind: 'profiles' };
  if (FILE_PLACEHOLDER.test(placeholder)) return { kind: 'files' };
  if (placeholder === 'role') return { kind: 'values', values: known.roles };
  if (/^event$/i.test(placeholder)) return { kind: 'values', values: known.events };
  if (/^E,/.test(placeholder) || /^EVENT,/.test(placeholder)) return { kind: 'list', values: known.events };
  const alternatives = description.split(' | ');
  if (alternatives.length > 1 && alternatives.every((v) => /^[\w-]+$/.test(v))) return { kind: 'values', values: alternatives.map((name) => ({ name })) };
  return { kind: 'text' };
}

/** Every node of the tree, root first. */
export function allNodes(tree: NodeSpec): NodeSpec[] {
  return [tree, ...tree.subcommands.flatMap(allNodes)];
}

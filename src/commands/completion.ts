import { Argument, type Command } from 'commander';
import type { Context } from '../context.js';
import { usageError } from '../errors.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

export function register(parent: Command, ctx: Context): void {
  parent
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  $ source <(mailroom completion bash)                         # this shell; add it to ~/.bashrc to keep it
  $ mailroom completion zsh > "\${fpath[1]}/_mailroom"
  $ mailroom completion fish > ~/.config/fish/completions/mailroom.fish`,
    )
    .action((shell: string, _opts: unknown, cmd: Command) => {
      let root = cmd;
      while (root.parent) root = root.parent;
      ctx.io.out.write(completionScript(shell, root));
    });
}

interface Node {
  /** `/keys/list`; the root is ''. */
  path: string;
  description: string;
  subcommands: string[];
  options: { flag: string; description: string }[];
  choices: string[];
}

/** The command tree as completion needs it; generated from Commander, so it never goes stale. */
export function commandTree(root: Command): Node[] {
  const nodes: Node[] = [];
  const walk = (cmd: Command, path: string) => {
    const visible = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    nodes.push({
      path,
      description: cmd.description(),
      subcommands: visible.map((c) => c.name()),
      options: cmd.options.filter((o) => !o.hidden).flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)).map((flag) => ({ flag, description: o.description }))),
      choices: cmd.registeredArguments.flatMap((a) => a.argChoices ?? []),
    });
    for (const sub of visible) walk(sub, `${path}/${sub.name()}`);
  };
  walk(root, '');
  return nodes;
}

export function completionScript(shell: string, root: Command): string {
  if (shell === 'bash') return bash(root);
  if (shell === 'zsh') return `#compdef mailroom\n# zsh completion for mailroom: runs the bash completion through bashcompinit.\nautoload -U +X bashcompinit && bashcompinit\n${bash(root)}`;
  if (shell === 'fish') return fish(root);
  throw usageError(`unknown shell "${shell}": expected ${SHELLS.join(', ')}`);
}

function bash(root: Command): string {
  const nodes = commandTree(root);
  const globals = nodes[0]?.options.map((o) => o.flag).filter((f) => f !== '--version' && f !== '-V') ?? [];
  const paths = nodes.filter((n) => n.path !== '').map((n) => `'${n.path}'`);
  const cases = nodes.map((n) => {
    const words = [...n.subcommands, ...n.choices, ...n.options.map((o) => o.flag), ...(n.path === '' ? [] : globals), '--help'];
    return `    '${n.path}') words='${[...new Set(words)].join(' ')}' ;;`;
  });
  return `# bash completion for mailroom: source <(mailroom completion bash)
_mailroom_completions() {
  local cur path w i words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  path=''
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$path/$w" in
      ${paths.join('|')}) path="$path/$w" ;;
    esac
  done
  case "$path" in
${cases.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _mailroom_completions mailroom
`;
}

const fishQuote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fish(root: Command): string {
  const nodes = commandTree(root);
  const paths = nodes.filter((n) => n.path !== '').map((n) => fishQuote(n.path));
  const lines = [
    '# fish completion for mailroom: mailroom completion fish > ~/.config/fish/completions/mailroom.fish',
    'function __mailroom_path',
    '    set -l path ""',
    '    for t in (commandline -opc)[2..-1]',
    '        switch "$path/$t"',
    `            case ${paths.join(' ')}`,
    '                set path "$path/$t"',
    '        end',
    '    end',
    '    echo $path',
    'end',
    'complete -c mailroom -f',
  ];
  const children = new Map(nodes.map((n) => [n.path, n]));
  for (const n of nodes) {
    const when = `-n ${fishQuote(`test (__mailroom_path) = "${n.path}"`)}`;
    for (const sub of n.subcommands) lines.push(`complete -c mailroom ${when} -a ${fishQuote(sub)} -d ${fishQuote(children.get(`${n.path}/${sub}`)?.description ?? '')}`);
    if (n.choices.length) lines.push(`complete -c mailroom ${when} -a ${fishQuote(n.choices.join(' '))}`);
    for (const o of n.options) {
      const flag = o.flag.startsWith('--') ? `-l ${o.flag.slice(2)}` : `-s ${o.flag.slice(1)}`;
      // Options of the root are global: offered after any command.
      lines.push(`complete -c mailroom ${n.path === '' ? '' : `${when} `}${flag} -d ${fishQuote(o.description)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

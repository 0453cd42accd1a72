import { Help, type Command } from 'commander';

/** Columns of help text at most (Commander's default when not on a terminal); bin/mailroom.js relies on it. */
export const HELP_WIDTH = 80;

/** Help is as wide as the terminal, never wider than HELP_WIDTH, so a pipe and a wide terminal get the same text. */
export const helpWidth = (columns: number | undefined): number => Math.min(columns ?? HELP_WIDTH, HELP_WIDTH);

/** Below this many columns beside the terms, a description goes under its term instead. */
const MIN_DESCRIPTION_WIDTH = 24;
const CONTINUATION = '    ';

/** Words of `text` in lines of at most `width` (a longer word keeps a line of its own); line breaks kept. */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    let line = '';
    for (const word of raw.split(/ +/).filter(Boolean)) {
      if (line !== '' && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line === '' ? word : `${line} ${word}`;
    }
    lines.push(line);
  }
  return lines;
}

/**
 * `  term  description` with the description wrapped beside the term, or, when the terminal leaves
 * too little room beside the longest term, under it (indented) so that it still wraps.
 */
export function formatItem(term: string, termWidth: number, description: string, width: number, under = !fitsBeside(termWidth, description, width)): string {
  if (!description) return `  ${term}`;
  const room = width - termWidth - 4;
  if (!under) {
    return `  ${term.padEnd(termWidth)}  ${wrapWords(description, room).join(`\n${' '.repeat(termWidth + 4)}`)}`;
  }
  return `  ${term}\n${wrapWords(description, width - 6)
    .map((l) => `      ${l}`)
    .join('\n')}`;
}

/** Whether a description wraps beside terms of `termWidth` (every word fits the room left). */
export function fitsBeside(termWidth: number, description: string, width: number): boolean {
  const room = width - termWidth - 4;
  return room >= MIN_DESCRIPTION_WIDTH && description.split(/\s+/).every((w) => w.length <= room);
}

/** Splits `$ cmd args   # note` into the command and its comment (a `#` outside quotes after a space). */
function splitComment(body: string): { command: string; comment: string | undefined } {
  let quote: string | undefined;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '#' && body[i - 1] === ' ') return { command: body.slice(0, i).trimEnd(), comment: body.slice(i) };
  }
  return { command: body, comment: undefined };
}

/** Shell words of a command line, quotes kept (a quoted string with spaces is one word). */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  for (const ch of command) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === ' ') {
      if (word !== '') words.push(word);
      word = '';
      continue;
    }
    word += ch;
  }
  if (word !== '') words.push(word);
  return words;
}

/** A command line continued with ` \` so that every line fits and the whole still pastes into a shell. */
function fitCommand(indent: string, command: string, width: number): string[] {
  const [first = '', ...rest] = shellWords(command);
  const lines: string[] = [];
  let line = `${indent}${first}`;
  rest.forEach((word, i) => {
    const last = i === rest.length - 1;
    if (line.trim() === '$' || `${line} ${word}`.length + (last ? 0 : 2) <= width) line = `${line} ${word}`;
    else {
      lines.push(`${line} \\`);
      line = `${indent}${CONTINUATION}${word}`;
    }
  });
  lines.push(line);
  return lines;
}

function fitLine(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const indent = /^ */.exec(line)?.[0] ?? '';
  const body = line.slice(indent.length);
  if (body.startsWith('$ ')) {
    const { command, comment } = splitComment(body);
    if (comment === undefined) return fitCommand(indent, command, width);
    const tight = `${indent}${command}  ${comment}`;
    if (tight.length <= width) return [tight];
    const note = wrapWords(comment.replace(/^# */, ''), width - indent.length - 2).map((l) => `${indent}# ${l}`);
    return [...note, ...fitCommand(indent, command, width)];
  }
  return wrapWords(body, width - indent.length).map((l) => `${indent}${l}`);
}

/**
 * Free help text (examples, notes) fitted to `width`: prose is re-wrapped, example commands are
 * continued with a backslash and their comments moved above them. Lines that fit are kept as written.
 */
export function fitToWidth(text: string, width: number): string {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // A paragraph (unindented lines up to a blank one) that does not fit is re-wrapped as a whole.
    let end = i;
    while (end < lines.length && isProse(lines[end] as string)) end++;
    const paragraph = lines.slice(i, end);
    if (paragraph.some((l) => l.length > width)) {
      out.push(...wrapWords(paragraph.join(' '), width));
      i = end - 1;
    } else out.push(...fitLine(lines[i] as string, width));
  }
  return out.join('\n');
}

const isProse = (line: string) => line !== '' && !line.startsWith(' ') && !line.endsWith(':');

/** The options every command inherits from `mailroom`, named in one short block under a sub-command's own. */
function globalOptionsBlock(cmd: Command, width: number): string {
  let root = cmd;
  while (root.parent) root = root.parent;
  const names = root.options.filter((o) => !o.hidden && o.long !== '--help' && o.long !== '--version').map((o) => o.long ?? o.short);
  return `Global options (see mailroom --help):\n${wrapWords(names.join(', '), width - 2)
    .map((l) => `  ${l}`)
    .join('\n')}\n`;
}

/** Commander's help, laid out for the width it is given (configureHelp). */
export const helpLayout: Partial<Help> = {
  formatItem(this: Help, term: string, termWidth: number, description: string) {
    return formatItem(term, termWidth, description, this.helpWidth ?? HELP_WIDTH);
  },
  formatHelp(this: Help, cmd: Command, helper: Help) {
    const text = Help.prototype.formatHelp.call(this, cmd, helper);
    if (!cmd.parent) return text;
    const block = globalOptionsBlock(cmd, this.helpWidth ?? HELP_WIDTH);
    const at = text.indexOf('\nCommands:\n');
    return at < 0 ? `${text}\n${block}` : `${text.slice(0, at + 1)}${block}${text.slice(at)}`;
  },
};

/**
 * The code blocks of a markdown page and what the docs test does with each, by the convention of
 * docs/development.md ("Examples"): shell, JS and TS blocks run; an HTML comment on the line before a
 * fence, `<!-- example: ... -->`, says otherwise.
 */
export type Marker =
  | { kind: 'run' }
  | { kind: 'no-test'; reason: string }
  | { kind: 'real-account' }
  | { kind: 'tested-by'; path: string }
  | { kind: 'file'; name: string }
  | { kind: 'background'; ready: string | undefined }
  | { kind: 'exit'; code: number };

export interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`sh`, `js`, `json`, ...); '' when the fence has none. */
  lang: string;
  body: string;
  marker: Marker;
}

export const SHELL = new Set(['sh', 'bash', 'shell']);
export const SCRIPT = new Set(['js', 'mjs', 'ts', 'mts']);

const MARKER = /^\s*<!-- example: (.*?) -->\s*$/;

export function parseMarker(text: string): Marker {
  let m: RegExpExecArray | null;
  if ((m = /^no-test \((.+)\)$/.exec(text))) return { kind: 'no-test', reason: m[1] as string };
  if (text === 'real-account') return { kind: 'real-account' };
  if ((m = /^tested-by (\S+)$/.exec(text))) return { kind: 'tested-by', path: m[1] as string };
  if ((m = /^file (\S+)$/.exec(text))) return { kind: 'file', name: m[1] as string };
  if ((m = /^background(?: ready="([^"]+)")?$/.exec(text))) return { kind: 'background', ready: m[1] };
  if ((m = /^exit (\d+)$/.exec(text))) return { kind: 'exit', code: Number(m[1]) };
  throw new Error(`unknown example marker "<!-- example: ${text} -->" (see docs/development.md, "Examples")`);
}

/** Every fenced block of `markdown`, with the marker on the line before it (blank lines between allowed). */
export function codeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i] as string);
    if (!open) continue;
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j] as string;
      const t = l.trim();
      if (t.length >= fence.length && /^(`+|~+)$/.test(t) && t[0] === fence[0]) break;
      body.push(l.startsWith(indent) ? l.slice(indent.length) : l.trimStart());
    }
    let k = i - 1;
    while (k >= 0 && (lines[k] as string).trim() === '') k--;
    const marked = k >= 0 ? MARKER.exec(lines[k] as string) : null;
    blocks.push({ line: i + 1, lang, body: body.join('\n'), marker: marked ? parseMarker(marked[1] as string) : { kind: 'run' } });
    i = j;
  }
  return blocks;
}

/**
 * A shell block's commands: `\` continuations joined, blank and comment-only lines dropped. A line
 * that opens a compound command (a function, a loop, a here-document) makes the block one script.
 */
export function shellCommands(body: string): string[] {
  return body
    .replace(/[ \t]*\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

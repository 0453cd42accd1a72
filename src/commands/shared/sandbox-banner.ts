import { wrapWords } from '../../help-layout.js';

/** What the sandbox's start-up banner tells: where it listens and the key and workspace it made. */
export interface BannerFacts {
  baseUrl: string;
  workspaceId: string;
  apiKey: string;
  data?: string | undefined;
  /** The one line that points any other terminal at it (`eval "$(mailroom sandbox env)"`), when recorded. */
  anyTerminal?: string | undefined;
  /** Said when the key and workspace are those of the sandbox last run on this port. */
  kept?: string | undefined;
}

const SEE = 'mailroom sandbox emails, sandbox open --browser';

/**
 * The lines `mailroom sandbox` prints on stderr when ready, each at most `width` columns on a
 * terminal of that width (none longer, so nothing wraps into the next): the label/value block and
 * the `export` line as they are when they fit; otherwise values under their labels, prose wrapped,
 * and one `export` per variable, a value too long for the line continued with a backslash-newline
 * (the shell joins it back, so what is pasted still sets the whole key). Width unknown (not a
 * terminal): the long form, one line per fact.
 */
export function sandboxBanner(f: BannerFacts, width: number | undefined): string[] {
  const pairs: [string, string][] = [
    ['workspace', f.workspaceId],
    ['API key', f.apiKey],
    ['inbox', `${f.baseUrl}/`],
    ...(f.data ? [['data', f.data] as [string, string]] : []),
  ];
  const vars: [string, string][] = [
    ['MAILROOM_BASE_URL', f.baseUrl],
    ['MAILROOM_API_KEY', f.apiKey],
    ['MAILROOM_WORKSPACE', f.workspaceId],
  ];
  const wide = [
    `mailroom sandbox listening on ${f.baseUrl}`,
    ...pairs.map(([label, value]) => `  ${label.padEnd(9)}  ${value}${label === 'inbox' ? `  (${SEE})` : ''}`),
    '',
    'Point mailroom (or any script) at it:',
    `  export ${vars.map(([name, value]) => `${name}=${value}`).join(' ')}`,
    ...(f.anyTerminal ? [`or, in any terminal: ${f.anyTerminal}`] : []),
    ...(f.kept ? [f.kept] : []),
    'Press Ctrl-C to stop.',
  ];
  if (width === undefined || wide.every((line) => line.length <= width)) return wide;
  const prose = (text: string) => wrapWords(text, width);
  const fitted = [...prose(`mailroom sandbox listening on ${f.baseUrl}`)];
  for (const [label, value] of pairs) {
    const beside = `  ${label.padEnd(9)}  ${value}`;
    if (beside.length <= width) fitted.push(beside);
    else fitted.push(`  ${label}:`, ...continued(value.length + 2 <= width ? `  ${value}` : value, width));
  }
  fitted.push(...prose(`See what it caught: ${SEE}`), '', ...prose('Point mailroom (or any script) at it:'));
  for (const [name, value] of vars) {
    const line = `export ${name}=${value}`;
    fitted.push(...(line.length <= width ? [line] : [`export ${name}=\\`, ...continued(value, width)]));
  }
  if (f.anyTerminal) fitted.push(...prose(`or, in any terminal: ${f.anyTerminal}`));
  if (f.kept) fitted.push(...prose(f.kept));
  fitted.push(...prose('Press Ctrl-C to stop.'));
  return fitted;
}

/** A word too long for a line, cut into lines that end in a backslash (a shell joins them back). */
function continued(word: string, width: number): string[] {
  const lines: string[] = [];
  let rest = word;
  while (rest.length > width) {
    lines.push(`${rest.slice(0, width - 1)}\\`);
    rest = rest.slice(width - 1);
  }
  return [...lines, rest];
}

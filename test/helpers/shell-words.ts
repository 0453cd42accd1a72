/**
 * The words of one simple shell command line as a POSIX shell splits them: single quotes keep
 * everything, double quotes keep all but `\` escapes of `"`, `\`, `$` and backquote, a backslash
 * outside quotes escapes the next character. Returns undefined when the line needs a shell
 * (expansions, pipes, redirections, `&&`, `;`, globs, a comment is dropped), so a caller runs it in one.
 */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const add = (s: string) => (word = (word ?? '') + s);
  while (i < line.length) {
    const ch = line[i] as string;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return undefined;
      add(line.slice(i + 1, end));
      i = end + 1;
    } else if (ch === '"') {
      let j = i + 1;
      let s = '';
      for (; j < line.length && line[j] !== '"'; j++) {
        const c = line[j] as string;
        if (c === '$' || c === '`') return undefined;
        if (c === '\\' && '"\\$`'.includes(line[j + 1] ?? '')) s += line[++j];
        else s += c;
      }
      if (j >= line.length) return undefined;
      add(s);
      i = j + 1;
    } else if (ch === '\\') {
      if (i + 1 >= line.length) return undefined;
      add(line[i + 1] as string);
      i += 2;
    } else if (ch === ' ' || ch === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (ch === '#' && word === undefined) {
      break;
    } else if ('|&;<>()$`*?[]{}~'.includes(ch) || (ch === '=' && word !== undefined && words.length === 0 && /^[A-Za-z_]\w*$/.test(word))) {
      return undefined;
    } else {
      add(ch);
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

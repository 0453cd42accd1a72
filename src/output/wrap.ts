/**
 * Values laid out under their column on a narrow terminal: a `label  value` line whose value is
 * too long goes on over the next lines, each indented to where the value began, so the terminal
 * never wraps it back to the first column, across the labels.
 */

/** Below this much room a value is not wrapped (the terminal does it): pieces of a few characters help nobody. */
const MIN_ROOM = 10;

/** `text` in lines of at most `width` characters: broken at spaces, a longer word (an id, a URL) cut where the line ends. */
export function wrapText(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/ +/)) {
    let rest = word;
    if (line !== '' && line.length + 1 + rest.length <= width) {
      line = `${line} ${rest}`;
      continue;
    }
    if (line !== '') lines.push(line);
    while (rest.length > width) {
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
    }
    line = rest;
  }
  lines.push(line);
  return lines;
}

/** `value` for a line where it starts at column `indent`: wrapped to `columns`, its next lines indented to the same column. */
export function underColumn(value: string, indent: number, columns: number | undefined): string {
  const room = columns === undefined ? Infinity : columns - indent;
  if (room < MIN_ROOM || value.length <= room) return value;
  return wrapText(value, room).join(`\n${' '.repeat(indent)}`);
}

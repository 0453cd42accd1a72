const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * A message as one terminal line: control characters from user input (a CR/LF in a path, an ESC
 * sequence in a file name) are shown escaped, so they can neither split the line nor drive the
 * terminal. Every error and warning line mailroom prints goes through this.
 */
export function oneLine(text: string): string {
  return text.replace(CONTROL, (ch) => ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

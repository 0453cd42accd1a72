const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// The same, but line breaks and tabs: a body of text keeps its lines.
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

const escape = (ch: string) => ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A message as one terminal line: control characters from user input (a CR/LF in a path, an ESC
 * sequence in a file name) or from a server's answer (a key's name, a warning, a webhook URL) are
 * shown escaped, so they can neither split the line nor drive the terminal. Every error, warning,
 * table cell and value line mailroom prints goes through this.
 */
export function oneLine(text: string): string {
  return text.replace(CONTROL, escape);
}

/** oneLine for a body of text shown on a terminal (an email's text part): its line breaks and tabs are kept. */
export function terminalText(text: string): string {
  return text.replace(CONTROL_BUT_LINES, escape);
}

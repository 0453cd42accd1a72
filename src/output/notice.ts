/**
 * What mailroom says on stderr beside its results starts with its name, so that `grep '^mailroom: '`
 * finds all of it in a mixed log (docs/input-and-output.md): an error is `mailroom: …`
 * (report-error.ts), a warning `mailroom: warning: …` (what may go wrong), a note `mailroom: note: …`
 * (what you may want to know).
 */
export type NoticeKind = 'note' | 'warning';

/** The line of a note or a warning, without its newline (for code that writes or collects it itself). */
export const noticeLine = (kind: NoticeKind, text: string): string => `mailroom: ${kind}: ${text}`;

/** Writes a note or a warning, one line, to stderr (or to what stands for it). */
export function notice(err: { write(text: string): unknown }, kind: NoticeKind, text: string): void {
  err.write(`${noticeLine(kind, text)}\n`);
}

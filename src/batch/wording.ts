import type { JournalHeader } from './journal.js';

/** The options the engine's messages name: the library's fields; the CLI names them by its flags. */
export type BatchField =
  | 'journal'
  | 'report'
  | 'failed'
  | 'newRun'
  | 'allowOtherHost'
  | 'allowOtherKey'
  | 'baseUrl'
  | 'profile'
  | 'from'
  | 'subject'
  | 'template'
  | 'html'
  | 'groupBy'
  | 'sendAt';

/** How a caller words the engine's messages: what it calls each option, and how one finishes an earlier run. */
export interface BatchWording {
  name(field: BatchField): string;
  /** The way to finish the run of `journal` (made from `input`), sending only what it did not. */
  finishRun(header: JournalHeader, journal: string, input: string): string;
  /** How to have the input read as NDJSON. */
  ndjsonHint: string;
}

/** The library's words: options by field name, as `emails.batch` takes them. */
export const FIELD_WORDING: BatchWording = {
  name: (field) => field,
  finishRun: (_header, journal, input) => `send ${input} again with journal: ${JSON.stringify(journal)} and the same defaults`,
  ndjsonHint: "give format: 'ndjson'",
};

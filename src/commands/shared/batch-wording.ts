import { resumeCommand } from '../../batch/earlier-runs.js';
import type { BatchField, BatchWording } from '../../batch/wording.js';

/** The flag of `mailroom batch` (or the global option) that sets each option the engine names. */
const FLAGS: Record<BatchField, string> = {
  journal: '--resume',
  report: '--report',
  failed: '--failed',
  newRun: '--new-run',
  allowOtherHost: '--allow-other-host',
  allowOtherKey: '--allow-other-key',
  baseUrl: '--base-url',
  profile: '--profile',
  from: '--from',
  subject: '--subject',
  template: '--template',
  html: '--html-file',
  groupBy: '--group-by',
  sendAt: '--send-at',
};

/** The batch engine's messages in the CLI's words: options as flags, an earlier run finished by a command line. */
export const CLI_WORDING: BatchWording = {
  name: (field) => FLAGS[field],
  finishRun: resumeCommand,
  ndjsonHint: 'use --format ndjson',
};

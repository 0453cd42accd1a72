import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadJournal, readJournalHeader } from '../../src/batch/journal-read.js';

describe('a journal that cannot be read says why in words', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mailroom-journal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reading the header of a directory', async () => {
    await expect(readJournalHeader(dir)).rejects.toThrow(`${dir}: cannot read it: is a directory`);
  });

  it('reading the records of a directory', async () => {
    await expect(loadJournal(dir, () => undefined)).rejects.toThrow(`${dir}: cannot read it: is a directory`);
  });

  it('a missing journal', async () => {
    await expect(readJournalHeader(join(dir, 'gone.journal'))).rejects.toThrow(`${join(dir, 'gone.journal')}: cannot read it: no such file`);
  });
});

import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../src/context.js';
import { outputMode, printJson, printKeyValues, printTable } from '../../src/output/index.js';

function fakeIO(tty: boolean, color = false): IO & { text(): string } {
  const out = new PassThrough();
  let buf = '';
  out.on('data', (d: Buffer) => (buf += d.toString()));
  return { out, err: new PassThrough(), in: new PassThrough(), isStdoutTTY: tty, isStderrTTY: tty, isStdinTTY: tty, color, text: () => buf };
}

describe('outputMode', () => {
  it('is a table on a terminal, JSON when piped or with --json, and carries -q', () => {
    expect(outputMode({ io: fakeIO(true, true) }, {})).toEqual({ format: 'table', quiet: false, color: true });
    expect(outputMode({ io: fakeIO(false) }, {})).toEqual({ format: 'json', quiet: false, color: false });
    expect(outputMode({ io: fakeIO(true, true) }, { json: true, quiet: true })).toEqual({ format: 'json', quiet: true, color: false });
  });
});

describe('printers', () => {
  it('prints JSON with a trailing newline', () => {
    const io = fakeIO(false);
    printJson({ io }, [{ id: 'aki_1' }]);
    expect(io.text()).toBe('[\n  {\n    "id": "aki_1"\n  }\n]\n');
  });

  it('prints an aligned borderless table without colour codes when colour is off', async () => {
    const io = fakeIO(true, false);
    await printTable({ io }, [{ id: 'aki_1', name: 'ci', tags: ['a', 'b'] }, { id: 'aki_22', name: undefined, tags: [] }], [
      { header: 'ID', value: (r) => r.id },
      { header: 'NAME', value: (r) => r.name },
      { header: 'TAGS', value: (r) => r.tags.join(', ') },
    ]);
    expect(io.text()).toBe('ID      NAME  TAGS\naki_1   ci    a, b\naki_22  -     -\n');
  });

  it('says so when a list is empty', async () => {
    const io = fakeIO(true);
    await printTable({ io }, [], [{ header: 'ID', value: () => 'x' }], 'no API keys');
    expect(io.text()).toBe('no API keys\n');
  });

  it('colours headers and labels only when io.color is on', async () => {
    const io = fakeIO(true, true);
    await printKeyValues({ io }, [['status', 'SUCCEED'], ['role', 'API_USER'], ['skipped', undefined]]);
    expect(io.text()).toContain('\u001b[');
    expect(stripVTControlCharacters(io.text())).toBe('status  SUCCEED\nrole    API_USER\n');
  });
});

describe('absent values', () => {
  it('leaves null values out of a key/value view, as it does undefined ones', async () => {
    const io = fakeIO(true);
    await printKeyValues({ io }, [['id', 'trs_1'], ['from', null], ['warning', 'w']]);
    expect(io.text()).toBe('id       trs_1\nwarning  w\n');
  });
});


describe('listNote', () => {
  it('counts of a thousand or more with a separator, as every other count', async () => {
    const { listNote } = await import('../../src/output/mode.js');
    expect(listNote(1_000, 12_000, { byDefault: false, countFlag: '--last' })).toBe('Showing the newest 1,000 of 12,000.\n');
    expect(listNote(50, 120, { byDefault: true, countFlag: '--last' })).toBe('Showing the newest 50 of 120: --all shows every one, --last <n> another number.\n');
  });
});

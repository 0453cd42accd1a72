import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEmailPayload, checkFlagConflicts, loadSources, pairs, validateEmail, type SendFlags } from '../../src/input/send-flags.js';

const now = new Date('2026-03-01T12:00:00.000Z');
const key = () => 'key-1';
const build = (f: SendFlags, loaded = {}) => buildEmailPayload(f, loaded, { now, newKey: key });

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as { kind?: string }).kind).toBe('validation');
    expect((err as Error).message).not.toContain('\n');
    return (err as Error).message;
  }
  throw new Error('expected a usage error');
}

const raw: SendFlags = { from: 'Ops <ops@example.com>', to: 'a@example.com', subject: 'Hi', html: '<p>Hi</p>' };

describe('buildEmailPayload', () => {
  it('maps every raw flag to its wire field', () => {
    const body = build({
      ...raw,
      fromName: 'Ops Team',
      text: 'Hi',
      previewText: 'preview',
      replyTo: 'reply@example.com',
      property: ['plan=pro', 'ref=a=b'],
      trackClicks: false,
      trackOpens: true,
      groupBy: 'onboarding',
      sendAt: '+2h',
      idempotencyKey: 'mine',
    });
    expect(body).toEqual({
      from: 'Ops <ops@example.com>',
      fromName: 'Ops Team',
      to: 'a@example.com',
      subject: 'Hi',
      html: '<p>Hi</p>',
      text: 'Hi',
      previewText: 'preview',
      replyTo: 'reply@example.com',
      contactProperties: { plan: 'pro', ref: 'a=b' },
      settings: { trackClicks: false, trackOpens: true },
      groupBy: 'onboarding',
      sendAt: '2026-03-01T14:00:00.000Z',
      idempotencyKey: 'mine',
    });
    expect(validateEmail(body, now)).toEqual(body);
  });

  it('gives every body a generated idempotency key unless one is given', () => {
    expect(build(raw).idempotencyKey).toBe('key-1');
    const a = buildEmailPayload(raw, {}, { now });
    const b = buildEmailPayload(raw, {}, { now });
    expect(a.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.idempotencyKey).not.toBe(b.idempotencyKey);
    expect(build(raw, { file: { idempotencyKey: 'from-file' } }).idempotencyKey).toBe('from-file');
  });

  it('leaves tracking settings out unless a tracking flag is given', () => {
    expect(build(raw)).not.toHaveProperty('settings');
    expect(build({ ...raw, trackOpens: false }).settings).toEqual({ trackOpens: false });
  });

  it('builds a templated email, merging --vars, --vars-file and --var (last wins), with {} when none', () => {
    expect(build({ to: 'a@example.com', template: 'welcome' })).toEqual({ to: 'a@example.com', template: 'welcome', variables: {}, idempotencyKey: 'key-1' });
    const body = build({ to: 'a@example.com', template: 'welcome', var: ['name=Ada', 'plan=pro'] }, { vars: { name: 'Bob', count: 3 } });
    expect(body.variables).toEqual({ name: 'Ada', count: 3, plan: 'pro' });
    expect(validateEmail(body, now)).toMatchObject({ template: 'welcome', variables: { name: 'Ada', count: 3, plan: 'pro' } });
  });

  it('puts flags over the --file payload and merges nested objects', () => {
    const file = { from: 'x@example.com', to: 'old@example.com', subject: 'Old', html: '<p>old</p>', settings: { trackClicks: true }, contactProperties: { a: '1' } };
    const body = build({ to: 'new@example.com', trackOpens: false, property: ['b=2'] }, { file });
    expect(body).toEqual({
      from: 'x@example.com',
      to: 'new@example.com',
      subject: 'Old',
      html: '<p>old</p>',
      settings: { trackClicks: true, trackOpens: false },
      contactProperties: { a: '1', b: '2' },
      idempotencyKey: 'key-1',
    });
  });

  it('a --file sendAt written as --send-at accepts it is sent in the API form; --send-at wins over it', () => {
    const file = { template: 'welcome', to: 'a@example.com', sendAt: '2026-03-02T09:00+0100' };
    expect(build({}, { file }).sendAt).toBe('2026-03-02T08:00:00.000Z');
    expect(validateEmail(build({}, { file }), now)).toMatchObject({ sendAt: '2026-03-02T08:00:00.000Z' });
    expect(build({ sendAt: '+2h' }, { file }).sendAt).toBe('2026-03-01T14:00:00.000Z');
  });

  it('uses the rendered React HTML as html', () => {
    expect(buildEmailPayload({ ...raw, html: undefined }, {}, { now, newKey: key, renderedHtml: '<h1>R</h1>' }).html).toBe('<h1>R</h1>');
  });

  it('refuses template variables without a template', () => {
    expect(usage(() => build({ ...raw, var: ['a=b'] }))).toBe('--var needs --template (or "template" in --file)');
    expect(usage(() => build(raw, { vars: {} }))).toMatch(/^--vars(-file)? needs --template/);
  });

  it('refuses malformed key=value pairs', () => {
    expect(usage(() => pairs(['novalue'], '--property'))).toBe('--property: expected key=value, got "novalue"');
    expect(usage(() => pairs(['=x'], '--var'))).toBe('--var: expected key=value, got "=x"');
  });
});

describe('checkFlagConflicts', () => {
  it('refuses combinations that cannot make one email', () => {
    expect(usage(() => checkFlagConflicts({ html: 'a', htmlFile: 'b' }))).toBe('--html and --html-file cannot be used together');
    expect(usage(() => checkFlagConflicts({ text: 'a', textFile: 'b' }))).toBe('--text and --text-file cannot be used together');
    expect(usage(() => checkFlagConflicts({ vars: '{}', varsFile: 'b' }))).toBe('--vars and --vars-file cannot be used together');
    expect(usage(() => checkFlagConflicts({ react: 'a.tsx', html: 'x' }))).toBe('--react and --html cannot be used together');
    expect(usage(() => checkFlagConflicts({ template: 't', subject: 's' }))).toMatch(/^--subject cannot be used with --template/);
    expect(usage(() => checkFlagConflicts({ template: 't', property: ['a=b'] }))).toMatch(/^--property cannot be used with --template/);
    expect(usage(() => checkFlagConflicts({ props: '{}' }))).toBe('--props needs --react');
    expect(usage(() => checkFlagConflicts({ file: '-', htmlFile: '-' }))).toBe('only one of --file, --html-file can read stdin (-)');
  });

  it('accepts the three ways of sending', () => {
    expect(() => checkFlagConflicts(raw)).not.toThrow();
    expect(() => checkFlagConflicts({ template: 't', to: 'a@example.com', var: ['a=b'], trackOpens: false })).not.toThrow();
    expect(() => checkFlagConflicts({ react: 'a.tsx', props: '{}', to: 'a@example.com', property: [] })).not.toThrow();
  });
});

describe('validateEmail', () => {
  it('names every missing raw field with its flag', () => {
    expect(usage(() => validateEmail({ idempotencyKey: 'k' }, now))).toBe(
      'invalid raw email: from (--from) is required; to (--to) is required; subject (--subject) is required; html (--html, --html-file or --react) is required',
    );
  });

  it('a field of the wrong type (from --file) is named as such, not as missing', () => {
    expect(usage(() => validateEmail({ ...build(raw), to: 5 }, now))).toBe('invalid raw email: to (--to) must be a string, not a number');
    expect(usage(() => validateEmail({ ...build(raw), settings: { trackClicks: 'no' } }, now))).toBe('invalid raw email: settings.trackClicks (--track-clicks, --track-opens) must be true or false, not a string');
  });

  it('checks addresses', () => {
    expect(usage(() => validateEmail(build({ ...raw, to: 'not-an-address' }), now))).toBe('invalid raw email: to (--to) must be an email address');
    expect(usage(() => validateEmail(build({ ...raw, from: 'Ops <nope>' }), now))).toBe(
      'invalid raw email: from (--from) must be an email address or "Name <address>"',
    );
    expect(usage(() => validateEmail(build({ ...raw, replyTo: 'x@' }), now))).toBe('invalid raw email: replyTo (--reply-to) must be an email address');
  });

  it('names unknown fields of a --file payload and the templated kind', () => {
    expect(usage(() => validateEmail({ ...build(raw), colour: 'red' }, now))).toBe('invalid raw email: unknown field colour');
    expect(usage(() => validateEmail({ template: 'w', to: 'a@example.com', html: '<p>', variables: {} }, now))).toBe('invalid templated email: unknown field html');
    expect(usage(() => validateEmail({ template: '', to: 'a@example.com' }, now))).toBe('invalid templated email: template (--template) must not be empty');
  });

  it('checks a sendAt from a file: format, past and horizon', () => {
    expect(usage(() => validateEmail({ ...build(raw), sendAt: 'soon' }, now))).toMatch(/^invalid raw email: sendAt \(--send-at\) is not an ISO 8601 /);
    expect(usage(() => validateEmail({ ...build(raw), sendAt: '2026-02-01T00:00:00Z' }, now))).toBe('sendAt: 2026-02-01T00:00:00.000Z is in the past');
    expect(usage(() => validateEmail({ ...build(raw), sendAt: '2026-07-01T00:00:00Z' }, now))).toMatch(/^sendAt: .* is more than 90 days ahead/);
  });
});

describe('loadSources', () => {
  it('reads files relative to the working directory and stdin for -', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-flags-'));
    await writeFile(join(dir, 'body.html'), '<p>from file</p>');
    await writeFile(join(dir, 'vars.json'), '{"name":"Ada"}');
    const loaded = await loadSources({ htmlFile: 'body.html', textFile: '-', varsFile: 'vars.json' }, dir, () => Readable.from([Buffer.from('plain text')]));
    expect(loaded).toEqual({ html: '<p>from file</p>', text: 'plain text', vars: { name: 'Ada' } });
  });

  it('refuses missing files and bad JSON with one line naming the flag', async () => {
    const stdin = Readable.from([]);
    await expect(loadSources({ htmlFile: 'nope.html' }, '/tmp', () => stdin)).rejects.toThrow('--html-file: cannot read nope.html: no such file');
    await expect(loadSources({ vars: '{"a":' }, '/tmp', () => stdin)).rejects.toThrow(/^--vars: not valid JSON at line 1, column 6: unexpected end of input$/);
    await expect(loadSources({ vars: '[1]' }, '/tmp', () => stdin)).rejects.toThrow('--vars: must be a JSON object, got an array');
    await expect(loadSources({ file: '-' }, '/tmp', () => Readable.from([Buffer.from('42')]))).rejects.toThrow('--file (stdin): must be a JSON object, got number');
  });
});

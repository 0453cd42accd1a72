import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, startInProcess } from '../helpers/context.js';
import { DEPENDENT_OPTIONS } from '../../src/commands/shared/dependent-options.js';

// An option that does nothing without another is refused, not ignored: one line, exit 2, nothing read or sent.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-dependent-'));
  writeFileSync(join(dir, 'a.html'), '<title>t</title><div style="display:none">pre</div><p>Hello there</p>');
  writeFileSync(join(dir, 'a.txt'), 'Hello there');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { MAILROOM_API_KEY: 'sk_test_dependent000000000000000', MAILROOM_BASE_URL: 'http://127.0.0.1:9' };
const refused: Array<[string[], string]> = [
  [['lint', 'a.html', '--max-links', '5'], '--max-links needs --check-links'],
  [['lint', 'a.html', '--link-timeout', '500'], '--link-timeout needs --check-links'],
  [['lint', 'a.html', '--templates', '.'], '--templates needs --file or --batch'],
  [['batch', 'missing.ndjson', '--allow-other-host'], '--allow-other-host needs --resume'],
  [['batch', 'missing.ndjson', '--allow-other-key'], '--allow-other-key needs --resume'],
  [['webhooks', 'listen', '--port', '0', '--token', 'wht_dependent0000000000000000', '--forward-queue', '5'], '--forward-queue needs --forward-to'],
  [['webhooks', 'listen', '--port', '0', '--token', 'wht_dependent0000000000000000', '--stop-timeout', '10'], '--stop-timeout needs --forward-to'],
  [['sandbox', '--port', '0', '--fault-seed', '7'], '--fault-seed needs --error-rate, --drop-rate or --lost-rate'],
  [['sandbox', '--port', '0', '--fault-seed', '7', '--latency', '5'], '--fault-seed needs --error-rate, --drop-rate or --lost-rate'],
  // Checked by the commands themselves, held here with the rest.
  [['send', '--to', 'a@example.com', '--template', 't', '--props', '{}'], '--props needs --react'],
  [['lint', 'a.html', '--props', '{}'], '--props needs a React email file (.tsx or .jsx) to render'],
  [['api', 'GET', '/v1/webhooks', '--slurp'], '--slurp gathers the pages of --paginate: add --paginate'],
  [['sandbox', 'email', 'em_0000000000000000', '--fail-on', 'warning'], '--fail-on needs --checks'],
];

describe('an option given without the one it needs', () => {
  for (const [args, line] of refused) {
    it(`${args.join(' ')}: "${line}", exit 2`, async () => {
      const r = await runInProcess(args, { cwd: dir, env });
      expect(r.stderr).toBe(`mailroom: ${line}\n`);
      expect(r.stdout).toBe('');
      expect(r.code).toBe(2);
    });
  }

  it('every option of the table is refused above (a new row needs its test)', () => {
    const tested = new Set(refused.map(([args, line]) => `${args[0] === 'webhooks' ? 'webhooks listen' : args[0]} ${line.split(' ')[0]}`));
    for (const [command, rows] of Object.entries(DEPENDENT_OPTIONS)) for (const [option] of rows) expect(tested).toContain(`${command} ${option}`);
  });

  it('with what they need, the same options work', async () => {
    const lint = await runInProcess(['lint', 'a.html', '--check-links', '--max-links', '5', '--link-timeout', '500', '-q'], { cwd: dir, env });
    expect([lint.code, lint.stderr]).toEqual([0, '']);
    writeFileSync(join(dir, 'e.json'), JSON.stringify({ template: 'welcome', to: 'a@example.com' }));
    const templates = await runInProcess(['lint', '--file', 'e.json', '--templates', '.', '-q'], { cwd: dir, env });
    expect(templates.stderr).not.toContain('needs');
    const seeded = startInProcess(['sandbox', '--port', '0', '--fault-seed', '7', '--error-rate', '0.5', '--json', '-q'], { cwd: dir, env });
    expect(JSON.parse(await seeded.waitForLine(() => true))).toHaveProperty('baseUrl');
    expect((await seeded.stop()).stderr).toBe('');
  });

  it('an option left at its default does not count as given: lint without --max-links runs', async () => {
    const r = await runInProcess(['lint', 'a.html', '-q'], { cwd: dir, env });
    expect([r.code, r.stderr]).toEqual([0, '']);
  });
});

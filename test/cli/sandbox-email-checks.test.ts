import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

/** `sandbox email <id> --checks`: lint's report, computed by the sandbox on the email as caught. */
let sb: TestSandbox;
let call: ReturnType<typeof client>;
beforeAll(async () => {
  sb = await withSandbox({ config: { verifiedDomains: ['example.com'], templates: { welcome: { from: 'hi@example.com', subject: 'Welcome', html: '<title>Welcome</title><div style="display:none">Hi</div><p>Hello {{name}}, your plan is ready.</p>' } } } });
  call = client(sb);
});
afterAll(() => sb.close());

const send = async (body: Record<string, unknown>) => {
  const res = await call('POST', '/v1/emails', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.email.id as string;
};
const checks = (id: string, more: string[] = [], opts: Parameters<typeof runInProcess>[1] = {}) =>
  runInProcess(['sandbox', 'email', id, '--checks', ...more], { env: { MAILROOM_BASE_URL: sb.baseUrl }, ...opts });

describe('mailroom sandbox email <id> --checks', () => {
  it('a caught email with problems: exit 10 and the same JSON as lint, with the fields checked too', async () => {
    const id = await send({ from: 'a@example.com', to: 'ada@example.com', subject: 'Hi {{name}}', html: '<p>Hello <a href="javascript:go()">there</a></p>' });
    const r = await checks(id, ['--json']);
    expect(r.code).toBe(10);
    const report = JSON.parse(r.stdout) as { ok: boolean; results: Array<{ input: string; findings: Array<{ check: string; line?: number }> }>; error: unknown };
    expect(report.ok).toBe(false);
    expect(report.results[0]?.input).toBe(id);
    expect(report.results[0]?.findings.map((f) => f.check)).toEqual(['link-unsafe-scheme', 'head-no-title', 'head-no-preheader', 'placeholder-unresolved']);
    expect(report.error).toMatchObject({ kind: 'checks', exitCode: 10 });
  });

  it('a templated email is checked as rendered; the generated text part counts as its text; --fail-on', async () => {
    const id = await send({ template: 'welcome', to: 'ada@example.com', variables: { name: 'Ada' } });
    const r = await checks(id, [], { tty: true, color: false });
    expect(r).toEqual({ code: 0, stdout: 'no findings in 1 email\n', stderr: '0 errors, 0 warnings, 0 info in 1 email: passed (--fail-on error)\n' });
    const raw = await send({ from: 'a@example.com', to: 'ada@example.com', subject: 'Hi', html: '<title>t</title><div style="display:none">p</div><p>Hello <a href="http://example.com">there</a></p>' });
    expect((await checks(raw, ['-q'])).code).toBe(0);
    expect((await checks(raw, ['-q', '--fail-on', 'warning'])).code).toBe(10);
  });

  it('usage: --fail-on without --checks, --checks with --html; an unknown id is exit 4', async () => {
    const id = await send({ from: 'a@example.com', to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>' });
    const env = { MAILROOM_BASE_URL: sb.baseUrl };
    expect((await runInProcess(['sandbox', 'email', id, '--fail-on', 'warning'], { env })).stderr).toBe('mailroom: --fail-on needs --checks\n');
    expect((await runInProcess(['sandbox', 'email', id, '--checks', '--html'], { env })).code).toBe(2);
    const missing = await checks('trs_doesnotexist');
    expect(missing.code).toBe(4);
    expect(missing.stderr.split('\n')[0]).toBe(`mailroom: no email trs_doesnotexist in the sandbox at ${sb.baseUrl}`);
  });
});

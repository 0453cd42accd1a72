import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { client, withSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sb = await withSandbox();
  env = { MAILROOM_BASE_URL: sb.baseUrl };
});
afterAll(() => sb.close());

const make = async (): Promise<{ workspaceId: string; apiKey: string }> => (await client(sb)('POST', '/_sandbox/workspaces', {})).body;
const listed = async (): Promise<string[]> => ((await client(sb)('GET', '/_sandbox/workspaces')).body.items as { id: string }[]).map((w) => w.id);

describe('mailroom sandbox workspace delete <wrk_id>', () => {
  test('on a terminal: one line on stdout, exit 0; the workspace is gone and its key refused; the key is never printed', async () => {
    const ws = await make();
    const r = await runInProcess(['sandbox', 'workspace', 'delete', ws.workspaceId, '--no-color'], { env, tty: 'stdout' });
    expect(r).toEqual({ code: 0, stdout: `Deleted workspace ${ws.workspaceId} from the sandbox at ${sb.baseUrl}: its keys are refused from now on\n`, stderr: '' });
    expect(await listed()).not.toContain(ws.workspaceId);
    expect((await client(sb)('GET', '/v1/api-keys/check', undefined, { key: ws.apiKey })).status).toBe(401);
    expect(r.stdout + r.stderr).not.toContain(ws.apiKey);
  });

  test('--json, and piped: one JSON document { workspaceId, isDeleted, baseUrl }; -q prints nothing', async () => {
    for (const args of [['--json'], []]) {
      const ws = await make();
      const r = await runInProcess(['sandbox', 'workspace', 'delete', ws.workspaceId, ...args], { env, tty: args.length > 0 ? 'stdout' : undefined });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ workspaceId: ws.workspaceId, isDeleted: true, baseUrl: sb.baseUrl });
      expect(r.stdout).not.toContain(ws.apiKey);
    }
    const ws = await make();
    expect(await runInProcess(['sandbox', 'workspace', 'delete', ws.workspaceId, '-q'], { env, tty: 'stdout' })).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await listed()).not.toContain(ws.workspaceId);
  });

  test('an unknown id (or one deleted already) exits 4, as the sandbox commands do for a 404; the first workspace exits 4 too, refused in our words', async () => {
    const ws = await make();
    expect((await runInProcess(['sandbox', 'workspace', 'delete', ws.workspaceId], { env })).code).toBe(0);
    const again = await runInProcess(['sandbox', 'workspace', 'delete', ws.workspaceId], { env });
    expect(again.code).toBe(4);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(`mailroom: no workspace ${ws.workspaceId} in the sandbox at ${sb.baseUrl}\n  list them with: mailroom sandbox workspace list\n`);

    const first = await runInProcess(['sandbox', 'workspace', 'delete', sb.workspaceId], { env });
    expect(first.code).toBe(4);
    expect(first.stdout).toBe('');
    expect(first.stderr).toBe(
      `mailroom: workspace ${sb.workspaceId} is the sandbox's first workspace (its ready key's) and cannot be deleted\n  delete only the workspaces made with: mailroom sandbox workspace create\n`,
    );
    expect(await listed()).toContain(sb.workspaceId);
    // --json: the error as one document on stdout, the line on stderr.
    const json = await runInProcess(['sandbox', 'workspace', 'delete', sb.workspaceId, '--json'], { env });
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { kind: 'rejected', exitCode: 4 } });
  });

  test('not a workspace id, or none given: exit 2 before any request', async () => {
    const bad = await runInProcess(['sandbox', 'workspace', 'delete', 'trs_123'], { env: { MAILROOM_BASE_URL: 'http://127.0.0.1:9' } });
    expect(bad).toEqual({ code: 2, stdout: '', stderr: 'mailroom: "trs_123" is not a workspace id: expected wrk_...\n' });
    const none = await runInProcess(['sandbox', 'workspace', 'delete'], { env });
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain("missing required argument 'wrk_id'");
  });

  test('no sandbox there: the exit code and words of workspace create', async () => {
    const nobody = { MAILROOM_BASE_URL: 'http://127.0.0.1:9' };
    const create = await runInProcess(['sandbox', 'workspace', 'create'], { env: nobody });
    const del = await runInProcess(['sandbox', 'workspace', 'delete', 'wrk_abc'], { env: nobody });
    expect(create.code).toBe(6);
    expect(del).toEqual({ code: 6, stdout: '', stderr: create.stderr });
  });
});

describe('a sandbox wait on a workspace that is deleted', () => {
  test('ends at once with exit 4 and says so, not at --timeout', async () => {
    const ws = await make();
    const started = Date.now();
    const waiting = runInProcess(['sandbox', 'wait', '--timeout', '20s'], { env: { ...env, MAILROOM_WORKSPACE: ws.workspaceId } });
    await new Promise((r) => setTimeout(r, 100));
    expect((await runInProcess(['sandbox', 'workspace', 'delete', ws.workspaceId, '-q'], { env })).code).toBe(0);
    expect(await waiting).toEqual({ code: 4, stdout: '', stderr: `mailroom: workspace ${ws.workspaceId} was deleted while waiting (sandbox workspace delete, or a test's teardown)\n` });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

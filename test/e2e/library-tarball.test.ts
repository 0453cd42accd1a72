import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** A user's program: both entry points, strictly typed, run against a sandbox it is told about. */
const PROGRAM = `
import { ApiError, AuthenticationError, ConnectionError, Mailroom, MailroomError, ValidationError, verifySignature, type EmailResult, type ErrorKind, type SendResult, type WebhookEvent } from 'mailroom-cli';
import { startSandbox } from 'mailroom-cli/sandbox';
import { createHmac } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { inspect } from 'node:util';

const mailroom = new Mailroom({ apiKey: process.env.KEY!, baseUrl: process.env.BASE_URL! });
const sent: SendResult = await mailroom.emails.send({ from: 'ops@example.com', to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>' });
const email: EmailResult = sent.email;
let refused = '';
try {
  await mailroom.emails.send({ from: 'ops@example.com', to: 'nobody', subject: 'Hi', html: '<p>x</p>' });
} catch (err) {
  if (err instanceof ValidationError) refused = err.kind;
  else if (err instanceof ApiError) refused = String(err.statusCode);
}
const pages: string[] = [];
const first = await mailroom.webhooks.list();
pages.push(String(first.items.length));
await mailroom.close();
// The official SDK's way to make a client (the key first) type-checks and works.
const sdkStyle = new Mailroom(process.env.KEY!, { baseUrl: process.env.BASE_URL! });
await sdkStyle.apiKeys.check();
await sdkStyle.close();
const sandbox = await startSandbox();
await sandbox.close();
const signature = createHmac('sha256', 'wht_tokentoken').update('{}').digest('hex');
const handled: WebhookEvent['known'] = false;
const notFound = new ApiError({ status: 404, body: { statusCode: 404, error: 'Not Found' } });
const unauthorized = ApiError.from({ status: 401, body: {} });
const names = { notFound: [String(notFound), notFound.kind, 'exitCode' in notFound], unauthorized: [unauthorized.name, unauthorized instanceof AuthenticationError, unauthorized.kind] };
// A server answering something that is not HTTP, echoing the request (its authorization header too).
const garbler = createServer((socket) => socket.once('data', (head) => socket.end(\`HTTZ/1.1 200 OK\\r\\n\${head.toString('latin1')}\`)));
await new Promise<void>((resolve) => garbler.listen(0, '127.0.0.1', resolve));
const secretKey = 'tarball-unshaped-key-5e6f7a8b9c0d';
const garbled = new Mailroom({ apiKey: secretKey, baseUrl: \`http://127.0.0.1:\${(garbler.address() as AddressInfo).port}\`, maxRetries: 0 });
const failure = await garbled.emails.send({ from: 'ops@example.com', to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>' }).then(() => undefined, (e: unknown) => e);
await garbled.close();
garbler.close();
const kind: ErrorKind | undefined = failure instanceof MailroomError ? failure.kind : undefined;
const shown = [inspect(failure, { depth: 10, showHidden: true }), JSON.stringify(failure), failure instanceof Error ? inspect(failure.cause, { showHidden: true }) : ''].join('\\n');
const garble = failure instanceof ConnectionError
  ? { name: failure.name, kind, mayHaveBeenSent: failure.mayHaveBeenSent, key: typeof failure.idempotencyKey, leaked: shown.includes(secretKey), masked: shown.includes('Bearer …9c0d') }
  : { name: String(failure) };
console.log(JSON.stringify({ id: email.id, key: sent.idempotencyKey, refused, verified: verifySignature('{}', signature, 'wht_tokentoken'), handled, sandbox: typeof sandbox.baseUrl, names, garble }));
`;

/**
 * What a user of the library relies on beyond the types, run as plain ESM in the same installed
 * project (packing again would double the file's time): each line of output is one case's result.
 */
const SAFETY = `
import { createWebhookHandler, IdempotencyConflictError, Mailroom, ValidationError, WebhookSignatureError } from 'mailroom-cli';

const out = {};
const outcome = (p) => p.then((v) => ({ ok: v }), (e) => ({ name: e.constructor.name, validation: e instanceof ValidationError, message: e.message }));
const mailroom = new Mailroom({ apiKey: process.env.KEY, baseUrl: process.env.BASE_URL, workspaceId: process.env.WORKSPACE });
const email = (to, idempotencyKey) => ({ from: 'ops@example.com', to, subject: 'Hi', html: '<p>Hi</p>', ...(idempotencyKey ? { idempotencyKey } : {}) });

// One key on two emails of a batch: refused, nothing sent. A key send() used: that entry fails as a conflict.
out.sameKeyInBatch = await outcome(mailroom.emails.sendBatch([email('one@example.com', 'tb-1'), email('two@example.com', 'tb-1')]));
await mailroom.emails.send(email('one@example.com', 'tb-2'));
const mixed = await mailroom.emails.sendBatch([email('zero@example.com'), email('two@example.com', 'tb-2')]);
out.keyUsedBySend = { successful: mixed.successful.map((r) => r.to), failed: mixed.failed.map((f) => [f.index, f.error]) };
out.sendConflict = (await outcome(mailroom.emails.send(email('three@example.com', 'tb-2')))).name === IdempotencyConflictError.name;
// Ids that would reach other endpoints ('..' made DELETE /v1/webhooks/.. a DELETE /v1/): refused, nothing sent.
const elsewhere = new Mailroom({ apiKey: process.env.KEY, baseUrl: process.env.BASE_URL, workspaceId: '..' });
out.badIds = [
  await outcome(mailroom.webhooks.delete('..')),
  await outcome(mailroom.apiKeys.update('.', { displayName: 'x' })),
  await outcome(Promise.resolve(elsewhere.apiKeys.list())),
  await outcome(elsewhere.apiKeys.delete('check')),
  await outcome(elsewhere.apiKeys.create({ displayName: 'x', role: 'API_USER' })),
].map((r) => r.validation && r.message);
await elsewhere.close();

// A request without headers is the handler's own 401; per-call limits are the client's; a
// "__proto__" variable is sent; a Unicode line separator in a header field is refused.
const headless = await outcome(createWebhookHandler({ token: 'wht_tokentoken' })({ body: '{}', headers: null }));
out.headless = [headless.name === WebhookSignatureError.name, headless.message];
out.perCall = [(await outcome(mailroom.emails.send(email('ada@example.com'), { timeoutMs: -1 }))).message, (await outcome(mailroom.webhooks.list({ maxRetries: 1e9 }))).message];
await mailroom.emails.send({ template: 'welcome', to: 'proto@example.com', variables: JSON.parse('{"__proto__":"kept"}') });
out.reactString = (await outcome(mailroom.emails.send({ ...email('ada@example.com'), html: undefined, react: '<p>Hi</p>' }))).message;
out.lineSeparator = [
  (await outcome(mailroom.emails.send({ ...email('ada@example.com'), subject: 'Hi\u2028Bcc: eve@example.com' }))).validation,
  (await outcome(mailroom.emails.send({ ...email('ada@example.com'), subject: 'Hi\u0085Bcc: eve@example.com' }))).validation,
];
out.misspelt = (await outcome(mailroom.emails.batch([email('ada@example.com')], { jounral: 'run.journal' }))).message;
await mailroom.close();
console.log(JSON.stringify(out));
`;

describe('the packed tarball, installed into a project of its own', () => {
  let dir: string;
  let project: string;
  let sandbox: TestSandbox;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mailroom-tarball-'));
    sandbox = await withSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks (strict, node16 and bundler resolution, no skipLibCheck) and runs a TypeScript program importing both entry points', async () => {
    // The checkout's dist/ as built (npm run build first): packing rebuilds nothing here.
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' })) as Array<{ filename: string }>;
    project = join(dir, 'app');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    // No registry: the tarball's one dependency, the keychain binding (@napi-rs/keyring and this
    // platform's binary), comes from the npm cache the checkout's install filled; its optional peers
    // are not needed here.
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=peer', join(dir, packed!.filename)], { cwd: project, encoding: 'utf8' });
    expect(readdirSync(join(project, 'node_modules'))).toEqual(['.bin', '.package-lock.json', '@napi-rs', 'mailroom-cli']);
    expect(readdirSync(join(project, 'node_modules', '@napi-rs'))[0]).toBe('keyring');
    // Every declaration file shipped is one the entries' types reach: none left from an earlier build.
    const typesDir = join(project, 'node_modules', 'mailroom-cli', 'dist', 'types');
    const reached = new Set<string>();
    const queue = ['library/index.d.ts', 'sandbox/library.d.ts'];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      if (reached.has(file)) continue;
      reached.add(file);
      for (const [, spec] of readFileSync(join(typesDir, file), 'utf8').matchAll(/\bfrom\s+['"](\.{1,2}\/[^'"]+)\.js['"]/g)) queue.push(posix.join(posix.dirname(file), `${spec!}.d.ts`));
    }
    const shipped = (readdirSync(typesDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.d.ts')).map((f) => f.split(sep).join('/'));
    expect(shipped.sort()).toEqual([...reached].sort());
    writeFileSync(join(project, 'main.ts'), PROGRAM);
    const types = join(ROOT, 'node_modules', '@types');
    // Both resolutions in one `tsc -b` process: the second program reuses the files the first parsed
    // (the default library, @types/node), and checks the same default library only once, since
    // nothing of it depends on module resolution. Everything else is checked by both.
    const configs = [
      ['node16.json', { module: 'node16', moduleResolution: 'node16' }],
      ['bundler.json', { module: 'esnext', moduleResolution: 'bundler', noEmit: true, skipDefaultLibCheck: true }],
    ] as const;
    for (const [name, resolution] of configs) {
      writeFileSync(
        join(project, name),
        JSON.stringify({
          compilerOptions: { target: 'es2022', strict: true, skipLibCheck: false, outDir: 'out', typeRoots: [types], types: ['node'], ...resolution },
          files: ['main.ts'],
        }),
      );
    }
    const tsc = await promisify(execFile)(process.execPath, [TSC, '-b', ...configs.map(([name]) => name)], { cwd: project, encoding: 'utf8' }).then(
      (r) => ({ status: 0, output: r.stdout + r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ status: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    expect(tsc.output).toBe('');
    expect(tsc.status).toBe(0);
    // Each configuration was built (checked), not skipped.
    expect(readdirSync(join(project, 'out')).sort()).toEqual(['bundler.tsbuildinfo', 'main.js', 'node16.tsbuildinfo']);
    // Not spawnSync: the sandbox answers from this process's event loop.
    const run = await promisify(execFile)(process.execPath, [join(project, 'out', 'main.js')], { cwd: project, encoding: 'utf8', env: { PATH: process.env.PATH, KEY: sandbox.apiKey, BASE_URL: sandbox.baseUrl } });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ refused: 'validation', verified: true, handled: false, sandbox: 'string' });
    // The errors' names and kinds as users see them, no exit codes; undici's error never escapes, and the key is masked everywhere.
    expect(out.names).toEqual({ notFound: ['ApiError: API 404 Not Found', 'rejected', false], unauthorized: ['AuthenticationError', true, 'authentication'] });
    expect(out.garble).toEqual({ name: 'ConnectionError', kind: 'connection', mayHaveBeenSent: true, key: 'string', leaked: false, masked: true });
    expect(out.id).toMatch(/\S/);
  }, 180_000);

  it('keeps its promises to a plain ESM program: nothing vanishes from a batch, no id reaches another endpoint, odd input gets a clear answer', async () => {
    await sandbox.reset();
    writeFileSync(join(project, 'safety.mjs'), SAFETY);
    const run = await promisify(execFile)(process.execPath, [join(project, 'safety.mjs')], {
      cwd: project,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, KEY: sandbox.apiKey, BASE_URL: sandbox.baseUrl, WORKSPACE: sandbox.workspaceId },
    });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(out.sameKeyInBatch).toMatchObject({ validation: true, message: expect.stringMatching(/email 1: idempotencyKey "tb-1" is also email 0's, with other content/) });
    expect(out.keyUsedBySend).toEqual({ successful: ['zero@example.com'], failed: [[1, 'IdempotencyConflict']] });
    expect(out.sendConflict).toBe(true);
    expect(out.badIds).toEqual([
      '".." is not a webhook id: expected wh_...',
      '"." is not an API key id: expected aki_...',
      '".." is not a workspace id: expected wrk_...',
      '".." is not a workspace id: expected wrk_...',
      '".." is not a workspace id: expected wrk_...',
    ]);
    expect(out.headless).toEqual([true, expect.stringMatching(/X-Smashsend-Signature/i)]);
    expect(out.perCall).toEqual([
      'emails.send: timeoutMs must be a positive integer of at most 2147483647 (about 24 days), got -1',
      'webhooks.list: maxRetries must be an integer from 0 to 10, got 1000000000',
    ]);
    expect(out.lineSeparator).toEqual([true, true]);
    expect(out.misspelt).toMatch(/^emails\.batch: unknown option jounral \(known: journal, /);
    expect(out.reactString).toBe('emails.send: react must be a React element (JSX, or React.createElement), got a string; for HTML you have already, give html');
    const caught = await sandbox.emails();
    expect(caught.map((e) => e.to).sort()).toEqual(['one@example.com', 'proto@example.com', 'zero@example.com']);
    expect(JSON.stringify(caught.find((e) => e.to === 'proto@example.com')!.variables)).toBe('{"__proto__":"kept"}');
  }, 60_000);
});

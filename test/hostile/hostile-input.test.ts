import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { runInProcess } from '../helpers/context.js';

/**
 * Hostile and broken input, in-process through src/run.ts: every case exits with its documented code
 * (2 unless told), prints exactly one line on stderr in mailroom's words and nothing on stdout, and
 * the recording proxy in front of the sandbox sees zero requests.
 */
let sandbox: TestSandbox;
let proxy: RecordingProxy;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'mailroom-hostile-'));
const file = (name: string, content: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};

beforeAll(async () => {
  sandbox = await withSandbox();
  proxy = await recordingProxy(sandbox.baseUrl);
  // Journals of the batch cases go to the temp dir, not the user's state directory.
  env = { MAILROOM_BASE_URL: proxy.baseUrl, MAILROOM_API_KEY: sandbox.apiKey, MAILROOM_WORKSPACE: sandbox.workspaceId, MAILROOM_STATE_DIR: dir };
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});

const raw = ['send', '--from', 'ops@example.com', '--to', 'a@example.com', '--subject', 'S', '--html', '<p>x</p>'];

interface Case {
  name: string;
  args: string[];
  stderr: RegExp;
  /** Exit code; 2 (usage) unless told. */
  code?: number;
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
}

const cases: Case[] = [];

// ---- Every parser error: exit 2 naming the file, the line and the column (or field) ----
const html = file('body.html', '<p>hi</p>');
const batchRaw = ['-q', '--from', 'ops@example.com', '--subject', 'S', '--html-file', html];
const big = Buffer.alloc(1024 * 1024 + 10, 'a');
const ok = JSON.stringify({ from: 'ops@example.com', to: 'a@example.com', subject: 'S', html: '<p>x</p>' });
const withField = (field: string, value: string) => JSON.stringify({ ...(JSON.parse(ok) as object), [field]: value });
const parsers: Case[] = [
  { name: 'batch CSV with a quote inside a field', args: ['batch', file('bad-quote.csv', 'to,subject\na@example.com,x"y"\n'), ...batchRaw], stderr: /^mailroom: \S+bad-quote\.csv: line 2, field 2 \("subject"\): not valid CSV: a quote inside an unquoted field/ },
  { name: 'batch CSV with a quoted field never closed', args: ['batch', file('unclosed.csv', 'to,subject\n"a@example.com,Hi\n'), ...batchRaw], stderr: /^mailroom: \S+unclosed\.csv: line \d+.*: not valid CSV: a quoted field is never closed$/ },
  { name: 'batch CSV with text after a closing quote', args: ['batch', file('after-quote.csv', 'to,subject\n"a@example.com"x,Hi\n'), ...batchRaw], stderr: /^mailroom: \S+after-quote\.csv: line 2, field 1 \("to"\): not valid CSV: text after a closing quote/ },
  { name: '--format csv on a JSON file', args: ['batch', file('emails.json', `[${ok}]`), '--format', 'csv', ...batchRaw], stderr: /^mailroom: \S+emails\.json: line 1, field 1: not valid CSV: a quote inside an unquoted field/ },
  { name: 'batch of binary data', args: ['batch', file('program.bin', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0])), ...batchRaw], stderr: /^mailroom: \S+program\.bin: a NUL byte at byte offset 7: binary data, not text$/ },
  { name: 'batch CSV in Latin-1', args: ['batch', file('latin1.csv', Buffer.from('to,subject\na@example.com,caf\xe9\n', 'latin1')), ...batchRaw], stderr: /^mailroom: \S+latin1\.csv: not UTF-8 text: invalid byte 0xe9 at byte offset 28$/ },
  { name: 'batch NDJSON with an invalid UTF-8 byte', args: ['batch', file('bad-utf8.ndjson', Buffer.concat([Buffer.from(`${ok}\n{"to":"`), Buffer.from([0xff]), Buffer.from('"}\n')])), ...batchRaw], stderr: new RegExp(`^mailroom: \\S+bad-utf8\\.ndjson: not UTF-8 text: invalid byte 0xff at byte offset ${ok.length + 8}$`) },
  { name: 'batch JSON in UTF-16', args: ['batch', file('utf16.json', Buffer.from(`\ufeff[${ok}]`, 'utf16le')), ...batchRaw], stderr: /^mailroom: \S+utf16\.json: not UTF-8 text: invalid byte 0xff at byte offset 0$/ },
  { name: 'batch ending inside a UTF-8 character', args: ['batch', file('cut.ndjson', Buffer.concat([Buffer.from(`${ok}\n`), Buffer.from([0xe2, 0x82])])), ...batchRaw], stderr: new RegExp(`^mailroom: \\S+cut\\.ndjson: not UTF-8 text: the input ends inside a character at byte offset ${ok.length + 1}$`) },
  { name: 'batch with an overlong UTF-8 encoding', args: ['batch', file('overlong.csv', Buffer.from([0x74, 0x6f, 0x0a, 0xc0, 0xaf, 0x0a])), ...batchRaw], stderr: /^mailroom: \S+overlong\.csv: not UTF-8 text: invalid byte 0xc0 at byte offset 3$/ },
  { name: 'batch with an encoded surrogate', args: ['batch', file('surrogate.csv', Buffer.from([0x74, 0x6f, 0x0a, 0xed, 0xa0, 0x80, 0x0a])), ...batchRaw], stderr: /^mailroom: \S+surrogate\.csv: not UTF-8 text: invalid byte 0xed at byte offset 3$/ },
  { name: 'batch from stdin with a NUL byte', args: ['batch', '-', ...batchRaw.slice(0, 5)], input: Buffer.from(`${ok}\n\0\n`), stderr: new RegExp(`^mailroom: stdin: a NUL byte at byte offset ${ok.length + 1}: binary data, not text$`) },
  { name: 'batch NDJSON line that is not JSON', args: ['batch', file('bad-line.ndjson', '{"to": x}\n'), ...batchRaw], stderr: /^mailroom: the one entry is not valid; nothing was sent; first: entry 0 \(line 1\): not valid JSON at column 8: unexpected "x"$/ },
  { name: 'batch NDJSON with a raw tab inside a string', args: ['batch', file('tab.ndjson', '{"to":"a@example.com","subject":"a\tb"}\n'), ...batchRaw], stderr: /^mailroom: the one entry is not valid; nothing was sent; first: entry 0 \(line 1\): not valid JSON at column 35: character U\+0009 inside a string \(escape it\)$/ },
  { name: 'batch JSON array with a broken element', args: ['batch', file('bad-element.json', '[\n  {"to": "b@example.com",}]'), ...batchRaw], stderr: /^mailroom: the one entry is not valid; nothing was sent; first: entry 0 \(line 2\): not valid JSON at line 2, column 26: expected a property name in double quotes, found "}"$/ },
  { name: 'batch JSON array never closed', args: ['batch', file('open.json', `[${ok}`), ...batchRaw], stderr: new RegExp(`^mailroom: \\S+open\\.json: line 1, column ${ok.length + 2}: the JSON array is not closed`) },
  { name: 'batch JSON with a second top-level value', args: ['batch', file('two.json', '[]\n[]'), ...batchRaw], stderr: /^mailroom: \S+two\.json: line 2, column 1: unexpected "\[" after the end of the JSON/ },
  { name: 'batch JSON object without "emails"', args: ['batch', file('nomails.json', '{"mails": []}'), ...batchRaw], stderr: /^mailroom: \S+nomails\.json: line 1, column 13: the top-level object has no "emails" array$/ },
  { name: 'batch JSON "emails" that is not an array', args: ['batch', file('emails-obj.json', '{"emails": {"to": 1}}'), ...batchRaw], stderr: /^mailroom: \S+emails-obj\.json: line 1, column 12: "emails" must be an array$/ },
  { name: 'batch JSON with a control character in a key', args: ['batch', file('ctl-key.json', '{"em\u0001ails": []}'), ...batchRaw], stderr: /^mailroom: \S+ctl-key\.json: line 1, column 11: a key in the top-level object is not a valid JSON string$/ },
  { name: 'batch NDJSON line over 1 MiB', args: ['batch', file('long-line.ndjson', big), ...batchRaw], stderr: /^mailroom: \S+long-line\.ndjson: line 1: longer than 1 MiB, more than the API takes for one email$/ },
  { name: 'batch JSON element over 1 MiB', args: ['batch', file('long-element.json', Buffer.concat([Buffer.from('[{"html":"'), big])), ...batchRaw], stderr: /^mailroom: \S+long-element\.json: line 1, column \d+: an element longer than 1 MiB/ },
  { name: 'batch CSV row over 1 MiB', args: ['batch', file('long-row.csv', Buffer.concat([Buffer.from('to,html\na@example.com,'), big])), ...batchRaw], stderr: /^mailroom: \S+long-row\.csv: line \d+.*: not valid CSV: a row larger than 1 MiB/ },
  { name: 'batch CSV header with an empty column name', args: ['batch', file('empty-col.csv', 'to,,subject\na@example.com,x,y\n'), ...batchRaw], stderr: /^mailroom: \S+empty-col\.csv: CSV header: a column has no name$/ },
  { name: 'batch --html-file of invalid UTF-8', args: ['batch', file('one.ndjson', `${ok}\n`), '-q', '--html-file', file('latin1.html', Buffer.from('<p>caf\xe9</p>', 'latin1'))], stderr: /^mailroom: --html-file \S+latin1\.html: not UTF-8 text: invalid byte 0xe9 at byte offset 6$/ },
  { name: 'batch --html-file /dev/zero', args: ['batch', file('one.ndjson', `${ok}\n`), '-q', '--html-file', '/dev/zero'], stderr: /^mailroom: --html-file \/dev\/zero: larger than 1 MiB, the most mailroom reads from one input/ },
  // send's files and stdin
  { name: 'send --html-file of invalid UTF-8', args: [...raw.slice(0, 7), '--html-file', file('bad.html', Buffer.from([0x3c, 0x70, 0x3e, 0xff]))], stderr: /^mailroom: --html-file \S+bad\.html: not UTF-8 text: invalid byte 0xff at byte offset 3$/ },
  { name: 'send --text-file of invalid UTF-8', args: [...raw, '--text-file', file('bad.txt', Buffer.from([0x68, 0x69, 0xc3]))], stderr: /^mailroom: --text-file \S+bad\.txt: not UTF-8 text: invalid byte 0xc3 at byte offset 2$/ },
  { name: 'send --file of invalid UTF-8', args: ['send', '--file', file('bad-email.json', Buffer.concat([Buffer.from(ok.slice(0, -2)), Buffer.from([0xfe]), Buffer.from('"}')]))], stderr: new RegExp(`^mailroom: --file \\S+bad-email\\.json: not UTF-8 text: invalid byte 0xfe at byte offset ${ok.length - 2}$`) },
  { name: 'send --vars-file of invalid UTF-8', args: ['send', '--template', 'welcome', '--to', 'a@example.com', '--vars-file', file('vars.json', Buffer.from([0x7b, 0x22, 0x80, 0x22, 0x3a, 0x31, 0x7d]))], stderr: /^mailroom: --vars-file \S+vars\.json: not UTF-8 text: invalid byte 0x80 at byte offset 2$/ },
  { name: 'send --file - with a NUL byte', args: ['send', '--file', '-'], input: Buffer.from(`${ok.slice(0, 10)}\0${ok.slice(10)}`), stderr: /^mailroom: --file \(stdin\): a NUL byte at byte offset 10: binary data, not text$/ },
  { name: 'send --html-file /dev/zero', args: [...raw.slice(0, 7), '--html-file', '/dev/zero'], stderr: /^mailroom: --html-file \/dev\/zero: larger than 1 MiB, the most mailroom reads from one input \(the API's request limit\)$/ },
  { name: 'send --html-file over 1 MiB', args: [...raw.slice(0, 7), '--html-file', file('big.html', big)], stderr: /^mailroom: --html-file \S+big\.html: larger than 1 MiB/ },
  { name: 'send --file - over 1 MiB on stdin', args: ['send', '--file', '-'], input: big, stderr: /^mailroom: --file \(stdin\): larger than 1 MiB/ },
  { name: 'send --html-file of a directory', args: [...raw.slice(0, 7), '--html-file', dir], stderr: /^mailroom: --html-file: cannot read \S+: is a directory$/ },
  { name: 'send --file with broken JSON on line 2', args: ['send', '--file', '-'], input: '{"to": "a@example.com",\n  "subject": }', stderr: /^mailroom: --file \(stdin\): not valid JSON at line 2, column 14: unexpected "}"$/ },
  { name: 'send --file with text after the object', args: ['send', '--file', '-'], input: `${ok} x`, stderr: new RegExp(`^mailroom: --file \\(stdin\\): not valid JSON at line 1, column ${ok.length + 2}: unexpected "x" after the end of the JSON value$`) },
  { name: 'send --vars-file with a trailing comma', args: ['send', '--template', 'welcome', '--to', 'a@example.com', '--vars-file', file('comma.json', '{"a": 1,}')], stderr: /^mailroom: --vars-file \S+comma\.json: not valid JSON at line 1, column 9: expected a property name in double quotes, found "}"$/ },
  { name: 'send --vars with an unterminated string', args: ['send', '--template', 'welcome', '--to', 'a@example.com', '--vars', '{"a": "b'], stderr: /^mailroom: --vars: not valid JSON at line 1, column 9: unterminated string$/ },
  // api and verify inputs
  { name: 'api --data @file of invalid UTF-8', args: ['api', 'POST', '/v1/webhooks', '--data', `@${file('data.json', Buffer.from([0x7b, 0xff, 0x7d]))}`], stderr: /^mailroom: --data \S+data\.json: not UTF-8 text: invalid byte 0xff at byte offset 1$/ },
  { name: 'api --data - with broken JSON', args: ['api', 'POST', '/v1/webhooks', '--data', '-'], input: '{"url":\n"x" "y"}', stderr: /^mailroom: --data \(stdin\): not valid JSON at line 2, column 5: expected "," or "}", found """$/ },
  { name: 'api --data @/dev/zero', args: ['api', 'POST', '/v1/emails/batch', '--data', '@/dev/zero'], stderr: /^mailroom: --data \/dev\/zero: larger than 10 MiB/ },
  { name: 'webhooks verify --payload /dev/zero', args: ['webhooks', 'verify', '--token', 'wht_abcdefgh12345678', '--signature', 'a'.repeat(64), '--payload', '/dev/zero'], stderr: /^mailroom: --payload \/dev\/zero: larger than 1 MiB/ },
  { name: 'webhooks verify --payload of a directory', args: ['webhooks', 'verify', '--token', 'wht_abcdefgh12345678', '--signature', 'a'.repeat(64), '--payload', dir], stderr: /^mailroom: --payload: cannot read \S+: is a directory$/ },
  { name: 'webhooks replay --journal /dev/zero', args: ['webhooks', 'replay', '--token', 'wht_abcdefgh12345678', '--journal', '/dev/zero', '--forward-to', 'http://127.0.0.1:9/'], stderr: /^mailroom: --journal: cannot read \/dev\/zero: not a regular file$/ },
  { name: 'login --api-key-stdin with invalid UTF-8', args: ['login', '--api-key-stdin'], input: Buffer.from([0x73, 0x6b, 0xff]), stderr: /^mailroom: --api-key-stdin \(stdin\): not UTF-8 text: invalid byte 0xff at byte offset 2$/ },
  { name: 'sandbox --config of invalid UTF-8', args: ['sandbox', '--port', '0', '--config', file('sandbox-latin1.json', Buffer.from('{"templates":{"t":{"subject":"caf\xe9","html":"x"}}}', 'latin1'))], stderr: /^mailroom: --config \S+sandbox-latin1\.json: not UTF-8 text: invalid byte 0xe9 at byte offset 33$/ },
  { name: 'sandbox --config with broken JSON', args: ['sandbox', '--port', '0', '--config', file('sandbox-bad.json', '{\n  "rateLimit": 5\n  "monthlyLimit": 1\n}')], stderr: /^mailroom: config file \S+sandbox-bad\.json is not valid JSON at line 3, column 3: expected "," or "}", found """$/ },
  { name: 'sandbox --config /dev/zero', args: ['sandbox', '--port', '0', '--config', '/dev/zero'], stderr: /^mailroom: --config \/dev\/zero: larger than 1 MiB/ },
];

// ---- Control characters where the API would make a header of them; NUL in any string ----
const sendWith = (flag: string, value: string) => {
  const args = [...raw];
  const i = args.indexOf(flag);
  if (i === -1) args.push(flag, value);
  else args[i + 1] = value;
  return args;
};
const controls: Case[] = [
  { name: 'CR/LF in --subject', args: sendWith('--subject', 'Hi\r\nBcc: victim@example.com'), stderr: /^mailroom: invalid raw email: subject \(--subject\):? must not contain control characters \(U\+000D at index 2\)$/ },
  { name: 'LF in --subject', args: sendWith('--subject', 'Hi\nthere'), stderr: /^mailroom: invalid raw email: subject \(--subject\):? must not contain control characters \(U\+000A at index 2\)$/ },
  { name: 'NUL in --subject', args: sendWith('--subject', 'Hi\0'), stderr: /subject \(--subject\):? must not contain control characters \(U\+0000 at index 2\)$/ },
  { name: 'tab in --subject', args: sendWith('--subject', 'a\tb'), stderr: /subject \(--subject\):? must not contain control characters \(U\+0009 at index 1\)$/ },
  { name: 'ESC in --subject', args: sendWith('--subject', 'a\u001b[2Jb'), stderr: /subject \(--subject\):? must not contain control characters \(U\+001B at index 1\)$/ },
  { name: 'DEL in --subject', args: sendWith('--subject', 'a\u007f'), stderr: /subject \(--subject\):? must not contain control characters \(U\+007F at index 1\)$/ },
  { name: 'CR/LF in --from-name', args: sendWith('--from-name', 'Ops\r\nBcc: victim@example.com'), stderr: /^mailroom: invalid raw email: fromName \(--from-name\):? must not contain control characters \(U\+000D at index 3\)$/ },
  { name: 'CR/LF in the name part of --from', args: sendWith('--from', 'Ops\r\n <ops@example.com>'), stderr: /^mailroom: invalid raw email: from \(--from\):? must not contain control characters \(U\+000D at index 3\)$/ },
  { name: 'CR/LF after --to', args: sendWith('--to', 'a@example.com\r\nBcc: victim@example.com'), stderr: /^mailroom: invalid raw email: to \(--to\):? must not contain control characters \(U\+000D at index 13\)$/ },
  { name: 'NUL in --to', args: sendWith('--to', 'a\0@example.com'), stderr: /^mailroom: invalid raw email: to \(--to\):? must not contain control characters \(U\+0000 at index 1\)$/ },
  { name: 'NUL in --reply-to', args: sendWith('--reply-to', 'r@example.com\0'), stderr: /^mailroom: invalid raw email: replyTo \(--reply-to\):? must not contain control characters/ },
  { name: 'LF in --template', args: ['send', '--template', 'welcome\nX-Injected: 1', '--to', 'a@example.com'], stderr: /^mailroom: invalid templated email: template \(--template\):? must not contain control characters \(U\+000A at index 7\)$/ },
  { name: 'CR in --group-by', args: sendWith('--group-by', 'g\r1'), stderr: /^mailroom: invalid raw email: groupBy \(--group-by\):? must not contain control characters/ },
  { name: 'LF in --idempotency-key', args: sendWith('--idempotency-key', 'k\nX: y'), stderr: /^mailroom: invalid raw email: idempotencyKey \(--idempotency-key\):? must not contain control characters/ },
  { name: 'NUL in --html', args: sendWith('--html', '<p>a\0b</p>'), stderr: /^mailroom: invalid raw email: html \(--html, --html-file or --react\):? must not contain a NUL character \(U\+0000 at index 4\)$/ },
  { name: 'NUL in --text', args: sendWith('--text', 'a\0'), stderr: /^mailroom: invalid raw email: text \(--text or --text-file\):? must not contain a NUL character/ },
  { name: 'NUL in --preview-text', args: sendWith('--preview-text', '\0'), stderr: /^mailroom: invalid raw email: previewText \(--preview-text\):? must not contain a NUL character/ },
  { name: 'NUL in a --property value', args: [...raw, '--property', 'plan=a\0b'], stderr: /^mailroom: invalid raw email: contactProperties\.plan \(--property\):? must not contain a NUL character/ },
  { name: 'LF in a --property name', args: [...raw, '--property', 'pl\nan=x'], stderr: /^mailroom: invalid raw email: contactProperties\.pl\\nan \(--property\):? must not contain control characters/ },
  { name: 'NUL in a --var value', args: ['send', '--template', 'welcome', '--to', 'a@example.com', '--var', 'name=\0'], stderr: /^mailroom: invalid templated email: variables\.name \(--var, --vars or --vars-file\):? must not contain a NUL character/ },
  { name: 'CR/LF in subject from --file', args: ['send', '--file', '-'], input: withField('subject', 'Hi\r\nBcc: victim@example.com'), stderr: /^mailroom: invalid raw email: subject \(--subject\):? must not contain control characters \(U\+000D at index 2\)$/ },
  { name: 'BEL in fromName from --file', args: ['send', '--file', '-'], input: withField('fromName', 'Ops\u0007'), stderr: /^mailroom: invalid raw email: fromName \(--from-name\):? must not contain control characters \(U\+0007 at index 3\)$/ },
  { name: 'NUL in html from --file', args: ['send', '--file', '-'], input: withField('html', 'a\u0000'), stderr: /^mailroom: invalid raw email: html \(--html, --html-file or --react\):? must not contain a NUL character/ },
  { name: 'CR/LF in a batch NDJSON subject', args: ['batch', file('crlf.ndjson', `${withField('subject', 'Hi\r\nBcc: victim@example.com')}\n`), '-q'], stderr: /^mailroom: the one entry is not valid; nothing was sent; first: entry 0 \(line 1\): subject:? must not contain control characters \(U\+000D at index 2\)$/ },
  { name: 'CR/LF in a batch CSV subject cell', args: ['batch', file('crlf.csv', 'to,subject\na@example.com,"Hi\r\nBcc: victim@example.com"\n'), ...batchRaw], stderr: /^mailroom: the one entry is not valid; nothing was sent; first: entry 0 \(line 2\): subject:? must not contain control characters \(U\+000D at index 2\)$/ },
  { name: 'NUL in a batch JSON html', args: ['batch', file('nul.json', `[${withField('html', 'a\u0000')}]`), '-q'], stderr: /^mailroom: the one entry is not valid; nothing was sent; first: entry 0 \(line 1\): html:? must not contain a NUL character/ },
  { name: 'LF in a batch entry replyTo', args: ['batch', file('replyto.ndjson', `${withField('replyTo', 'r@example.com\nBcc: v@example.com')}\n`), '-q'], stderr: /first: entry 0 \(line 1\): replyTo:? must not contain control characters/ },
  { name: 'CR in a batch entry idempotencyKey', args: ['batch', file('key.ndjson', `${withField('idempotencyKey', 'k\r')}\n`), '-q'], stderr: /first: entry 0 \(line 1\): idempotencyKey:? must not contain control characters/ },
  { name: 'LF in a batch --subject default', args: ['batch', file('nosubject.ndjson', `${JSON.stringify({ from: 'ops@example.com', to: 'a@example.com', html: 'x' })}\n`), '-q', '--subject', 'Hi\nBcc: v@example.com'], stderr: /first: entry 0 \(line 1\): subject:? must not contain control characters \(U\+000A at index 2\)$/ },
  { name: 'CR/LF in a batch --from default', args: ['batch', file('nofrom.ndjson', `${JSON.stringify({ to: 'a@example.com', subject: 'S', html: 'x' })}\n`), '-q', '--from', 'Ops\r\n <ops@example.com>'], stderr: /first: entry 0 \(line 1\): from:? must not contain control characters/ },
  { name: 'CR/LF in keys create --name', args: ['keys', 'create', '--name', 'ci\r\nX: y'], stderr: /^mailroom: invalid key: name \(--name\):? must not contain control characters \(U\+000D at index 2\)$/ },
  { name: 'NUL in keys update --name', args: ['keys', 'update', 'aki_abc', '--name', 'ci\0'], stderr: /^mailroom: invalid update: name \(--name\):? must not contain control characters \(U\+0000 at index 2\)$/ },
  { name: 'CR/LF in webhooks create --token', args: ['webhooks', 'create', '--url', 'https://h.example.com/', '--event', 'CONTACT_CREATED', '--token', 'wht_abcdefgh\r\nX: y'], stderr: /^mailroom: --token:? must not contain control characters \(U\+000D at index 12\)$/ },
];

// ---- Webhook URLs: no control characters or spaces, only http(s), no credentials ----
const hook = (url: string) => ['webhooks', 'create', '--url', url, '--event', 'CONTACT_CREATED'];
const urls: Case[] = [
  { name: 'webhook URL with CR/LF', args: hook('http://h.example.com/x\r\nX: y'), stderr: /^mailroom: --url:? must not contain spaces or control characters$/ },
  { name: 'webhook URL with a tab', args: hook('http://h.example.com/\tx'), stderr: /^mailroom: --url:? must not contain spaces or control characters$/ },
  { name: 'webhook URL with a space', args: hook('http://h.example.com/a b'), stderr: /^mailroom: --url:? must not contain spaces or control characters$/ },
  { name: 'webhook URL with a leading space', args: hook(' http://h.example.com/'), stderr: /^mailroom: --url:? must not contain spaces or control characters$/ },
  { name: 'webhook URL with a NUL', args: hook('http://h.example.com/\0'), stderr: /^mailroom: --url:? must not contain spaces or control characters$/ },
  { name: 'webhook URL with a no-break space', args: hook('http://h.example.com/\u00a0'), stderr: /^mailroom: --url:? must not contain spaces or control characters$/ },
  { name: 'webhook URL with credentials', args: hook('https://user:hunter2@h.example.com/'), stderr: /^mailroom: --url: must not carry credentials \(user:password@\)$/ },
  { name: 'webhook URL with a user name only', args: hook('https://user@h.example.com/'), stderr: /^mailroom: --url: must not carry credentials \(user:password@\)$/ },
  { name: 'webhook URL with javascript:', args: hook('javascript:alert(1)'), stderr: /^mailroom: --url: "javascript:alert\(1\)" is not an http\(s\) URL$/ },
  { name: 'webhook URL with file:', args: hook('file:///etc/passwd'), stderr: /^mailroom: --url: "file:\/\/\/etc\/passwd" is not an http\(s\) URL$/ },
  { name: 'webhook URL without a scheme', args: hook('//h.example.com/x'), stderr: /^mailroom: --url: "\/\/h\.example\.com\/x" is not a URL$/ },
  { name: 'webhook URL with no host', args: hook('http://'), stderr: /^mailroom: --url: "http:\/\/" is not a URL$/ },
  { name: '--forward-to with credentials', args: ['webhooks', 'listen', '--token', 'wht_abcdefgh12345678', '--port', '0', '--forward-to', 'http://u:p@127.0.0.1:9/'], stderr: /^mailroom: --forward-to: must not carry credentials \(user:password@\)$/ },
  { name: '--forward-to with CR/LF', args: ['webhooks', 'listen', '--token', 'wht_abcdefgh12345678', '--port', '0', '--forward-to', 'http://127.0.0.1:9/\r\nx'], stderr: /^mailroom: --forward-to:? must not contain spaces or control characters$/ },
  { name: 'replay --forward-to of another scheme', args: ['webhooks', 'replay', '--token', 'wht_abcdefgh12345678', '--journal', file('empty.ndjson', ''), '--forward-to', 'gopher://127.0.0.1/'], stderr: /^mailroom: --forward-to: "gopher:\/\/127\.0\.0\.1\/" must be an http:\/\/ or https:\/\/ URL$/ },
  { name: '--base-url with CR/LF', args: ['check', '--base-url', 'http://127.0.0.1:9/\r\nX: y'], stderr: /^mailroom: --base-url:? must not contain spaces or control characters$/ },
  { name: 'MAILROOM_BASE_URL with a tab', args: ['check'], env: { MAILROOM_BASE_URL: 'http://127.0.0.1:9/\tv1' }, stderr: /^mailroom: MAILROOM_BASE_URL:? must not contain spaces or control characters$/ },
  { name: 'config set base-url with a LF', args: ['config', 'set', 'base-url', 'http://127.0.0.1:9/\nx'], stderr: /^mailroom: base-url:? must not contain spaces or control characters$/ },
];

// ---- api: the path is normalised, then checked; never outside /v1 ----
const api = (path: string) => ['api', 'GET', path];
const apiPaths: Case[] = [
  { name: 'api path climbing out of /v1', args: api('/v1/../../_sandbox/emails'), stderr: /^mailroom: path "\/v1\/\.\.\/\.\.\/_sandbox\/emails": "\." and "\.\." segments are not allowed$/ },
  { name: 'api path with encoded dot segments', args: api('/v1/%2e%2E/_sandbox/emails'), stderr: /"\." and "\.\." segments are not allowed$/ },
  { name: 'api path with a half-encoded dot segment', args: api('/v1/.%2e/_sandbox/emails'), stderr: /"\." and "\.\." segments are not allowed$/ },
  { name: 'api path with a single dot segment', args: api('/v1/./webhooks'), stderr: /"\." and "\.\." segments are not allowed$/ },
  { name: 'api path without /v1 climbing out', args: api('webhooks/../../_sandbox/reset'), stderr: /"\." and "\.\." segments are not allowed$/ },
  { name: 'api path with an encoded slash', args: api('/v1/webhooks%2F..%2F..%2F_sandbox'), stderr: /^mailroom: path "\/v1\/webhooks%2F\.\.%2F\.\.%2F_sandbox": encoded slashes \(%2F, %5C\) are not allowed in a path$/ },
  { name: 'api path with an encoded backslash', args: api('/v1/webhooks%5c..'), stderr: /encoded slashes \(%2F, %5C\) are not allowed in a path$/ },
  { name: 'api path with backslashes', args: api('/v1\\..\\_sandbox\\emails'), stderr: /^mailroom: path "\/v1\\\.\.\\_sandbox\\emails": backslashes are not allowed in a path$/ },
  { name: 'api absolute URL', args: api('http://evil.example.com/v1/webhooks'), stderr: /^mailroom: path "http:\/\/evil\.example\.com\/v1\/webhooks": give a path such as \/v1\/webhooks, not a URL/ },
  { name: 'api scheme-relative URL', args: api('//evil.example.com/v1/webhooks'), stderr: /not a URL \(the host comes from --base-url\)$/ },
  { name: 'api path with CR/LF: one line, escaped', args: api('/v1/webhooks\r\nX-Injected: 1'), stderr: /^mailroom: path "\/v1\/webhooks\\r\\nX-Injected: 1" contains control characters$/ },
  { name: 'api path with an ESC sequence, escaped', args: api('/v1/\u001b[31mred'), stderr: /^mailroom: path "\/v1\/\\u001b\[31mred" contains control characters$/ },
  { name: 'api path of another version', args: api('/v2/webhooks'), stderr: /^mailroom: path "\/v2\/webhooks": this CLI speaks \/v1 only$/ },
  { name: 'api method not allowed', args: ['api', 'PATCH', '/v1/webhooks'], stderr: /^mailroom: method "PATCH": expected one of GET, POST, DELETE$/ },
  { name: 'api --data on a GET', args: ['api', 'GET', '/v1/webhooks', '--data', '{}'], stderr: /^mailroom: --data: a GET request has no body$/ },
];

// ---- Every message that quotes user input stays one line ----
const oneLine: Case[] = [
  { name: 'unknown option with a newline in it', args: ['send', '--bo\ngus'], stderr: /^mailroom: unknown option '--bo\\ngus'$/ },
  { name: 'unknown command with an ESC in it', args: ['ke\u001b[2Jys'], stderr: /^mailroom: unknown command 'ke\\u001b\[2Jys'/ },
  { name: 'a missing --file named with a newline', args: ['send', '--file', 'no\nsuch.json'], stderr: /^mailroom: --file: cannot read no\\nsuch\.json: no such file$/ },
  { name: 'a missing batch input named with CR', args: ['batch', 'no\rsuch.ndjson'], stderr: /^mailroom: cannot read no\\rsuch\.ndjson: no such file$/ },
  { name: 'an unknown event with a newline', args: ['webhooks', 'create', '--url', 'https://h.example.com/', '--event', 'CONTACT\nCREATED'], stderr: /^mailroom: unknown event CONTACT\\nCREATED \(did you mean CONTACT_CREATED\?\); valid: / },
  { name: 'a webhook id with a newline', args: ['webhooks', 'get', 'wh_a\nb'], stderr: /^mailroom: "wh_a\\nb" is not a webhook id: expected wh_\.\.\.$/ },
  { name: 'a --send-at with a newline', args: [...raw, '--send-at', 'tomorrow\nX'], stderr: /^mailroom: --send-at: "tomorrow\\nX" is not ISO 8601 with a time zone/ },
  { name: 'a --property without = and with a newline', args: [...raw, '--property', 'pl\nan'], stderr: /^mailroom: --property: expected key=value, got "pl\\nan"$/ },
];

cases.push(...parsers, ...controls, ...urls, ...apiPaths, ...oneLine);

describe('hostile input: the documented exit code, one line on stderr, nothing on stdout, zero requests', () => {
  it.each(cases)('$name', async (c) => {
    const before = proxy.seen.length;
    const r = await runInProcess(c.args, { env: { ...env, ...c.env }, ...(c.input === undefined ? {} : { input: c.input }) });
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.slice(0, -1)).not.toContain('\n');
    expect(r.stderr.trimEnd()).toMatch(c.stderr);
    expect(r.code).toBe(c.code ?? 2);
    expect(proxy.seen.slice(before)).toEqual([]);
  });

  it('has at least 120 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(120);
  });

  it('the sandbox caught no email and the proxy saw no request', async () => {
    expect(await sandbox.emails()).toEqual([]);
    expect(proxy.seen).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { codeBlocks, shellCommands } from '../helpers/doc-examples.js';
import { shellWords } from '../helpers/shell-words.js';

describe('the docs examples convention (docs/development.md, "Examples")', () => {
  it('reads each fence with its language and the marker on the line before it', () => {
    const page = [
      'Intro',
      '<!-- example: file emails.ndjson -->',
      '```ndjson',
      '{"to":"a@example.com"}',
      '```',
      '',
      '<!-- example: background ready="Ready: listening" -->',
      '',
      '```sh',
      'mailroom webhooks listen --register',
      '```',
      '1. a list item',
      '',
      '   <!-- example: no-test (a source file) -->',
      '   ````ts',
      '   const fence = "```";',
      '   ````',
      '```sh',
      'mailroom send \\',
      '  --sandbox   # a comment',
      '```',
    ].join('\n');
    expect(codeBlocks(page)).toEqual([
      { line: 3, lang: 'ndjson', body: '{"to":"a@example.com"}', marker: { kind: 'file', name: 'emails.ndjson' } },
      { line: 9, lang: 'sh', body: 'mailroom webhooks listen --register', marker: { kind: 'background', ready: 'Ready: listening' } },
      { line: 15, lang: 'ts', body: 'const fence = "```";', marker: { kind: 'no-test', reason: 'a source file' } },
      { line: 18, lang: 'sh', body: 'mailroom send \\\n  --sandbox   # a comment', marker: { kind: 'run' } },
    ]);
    expect(shellCommands('# only a comment\nmailroom send \\\n  --sandbox\n\nmailroom check')).toEqual(['mailroom send --sandbox', 'mailroom check']);
  });

  it('refuses a marker it does not know, naming the convention', () => {
    expect(() => codeBlocks('<!-- example: skip -->\n```sh\nmailroom check\n```')).toThrow(/unknown example marker .*docs\/development\.md/);
    expect(() => codeBlocks('<!-- example: no-test -->\n```sh\nx\n```')).toThrow(/unknown example marker/);
  });

  it('splits a plain command line into words as a shell does, and says when a line needs a shell', () => {
    expect(shellWords(`mailroom send --html '<p>Hi!</p>' --subject "Say \\"hi\\"" --to a\\ b@x --var name=Ada # note`)).toEqual([
      'mailroom', 'send', '--html', '<p>Hi!</p>', '--subject', 'Say "hi"', '--to', 'a b@x', '--var', 'name=Ada',
    ]);
    for (const line of ['a | b', 'a > f', 'a && b', 'a $HOME', 'a "$X"', 'a $(b)', 'X=1 a', 'a *.json', "a 'open"]) expect(shellWords(line), line).toBeUndefined();
  });
});

import { createElement } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Mailroom, ValidationError } from '../../src/library/index.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';

const raw = { from: 'ops@example.com', to: 'ada@example.com', subject: 'Hello' };

describe('coming from @smashsend/node', () => {
  let sandbox: TestSandbox;
  beforeAll(async () => {
    sandbox = await withSandbox();
  });
  afterAll(() => sandbox.close());
  afterEach(() => sandbox.reset());

  it('new Mailroom(key) and new Mailroom(key, options): the key as the first argument, as the SDK takes it', async () => {
    const mailroom = new Mailroom(sandbox.apiKey, { baseUrl: sandbox.baseUrl, env: {} });
    try {
      await expect(mailroom.apiKeys.check()).resolves.toMatchObject({ status: 'SUCCEED' });
      const sent = await mailroom.emails.send({ ...raw, html: '<p>Hi</p>' });
      expect(sent.email.to).toBe('ada@example.com');
    } finally {
      await mailroom.close();
    }
    // The key alone: the rest from the environment given (here, none: the default host).
    expect(new Mailroom('sk_live_onlythekeyonlythekey', { env: {} }).baseUrl).toBe('https://api.smashsend.com');
  });

  it('a key given twice, an empty key, options the SDK had: refused in words that say what to do', () => {
    expect(() => new Mailroom('sk_live_aaaaaaaaaaaaaaaa', { apiKey: 'sk_live_bbbbbbbbbbbbbbbb', env: {} } as never)).toThrow(new ValidationError('new Mailroom(): the API key is given twice (as the first argument and as apiKey): give it once'));
    expect(() => new Mailroom('', { env: {} })).toThrow('new Mailroom(): no API key: pass { apiKey }, or set MAILROOM_API_KEY');
    expect(() => new Mailroom('sk_live_aaaaaaaaaaaaaaaa', { timeout: 5000, env: {} } as never)).toThrow('new Mailroom(): unknown option timeout: it is timeoutMs here');
    expect(() => new Mailroom({ apiKey: 'sk_live_aaaaaaaaaaaaaaaa', apiVersion: 'v2', env: {} } as never)).toThrow('new Mailroom(): unknown option apiVersion: mailroom speaks the API\'s /v1');
    expect(() => new Mailroom({ apiKey: 'sk_live_aaaaaaaaaaaaaaaa', retries: 2, env: {} } as never)).toThrow('new Mailroom(): unknown option retries (known: apiKey, baseUrl, workspaceId, timeoutMs, maxRetries, env)');
    expect(() => new Mailroom(42 as never)).toThrow('new Mailroom(): give the API key (a string) or an options object, got a number');
    expect(() => new Mailroom({ apiKey: 42, env: {} } as never)).toThrow(new ValidationError('new Mailroom(): apiKey must be a string, got number'));
    expect(() => new Mailroom({ apiKey: 'sk_live_aaaaaaaaaaaaaaaa', baseUrl: new URL('http://127.0.0.1:9'), env: {} } as never)).toThrow('new Mailroom(): baseUrl must be a string, got object');
    expect(() => new Mailroom({ apiKey: 'sk_live_aaaaaaaaaaaaaaaa', workspaceId: null, env: {} } as never)).toThrow('new Mailroom(): workspaceId must be a string, got null');
    expect(() => new Mailroom({ apiKey: 'sk_live_aaaaaaaaaaaaaaaa', env: 'production' } as never)).toThrow('new Mailroom(): env must be an object of variable names to values (process.env by default)');
  });

  it('react given a string (the SDK sent it as HTML) is refused, nothing sent; an element is rendered', async () => {
    const mailroom = new Mailroom(sandbox.apiKey, { baseUrl: sandbox.baseUrl, env: {} });
    try {
      for (const react of ['<p>Hi</p>', { type: 'p', props: {}, key: null }, 42]) {
        const err = await mailroom.emails.send({ ...raw, react } as never).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ValidationError);
        expect((err as Error).message).toMatch(/^emails\.send: react must be a React element \(JSX, or React\.createElement\), got (a string|an object|a number); for HTML you have already, give html$/);
      }
      expect(await sandbox.emails()).toEqual([]);
      await mailroom.emails.send({ ...raw, react: createElement('p', null, 'Hi <Ada>') });
      const [email] = await sandbox.emails();
      expect(email!.html).toContain('<p>Hi &lt;Ada&gt;</p>');
    } finally {
      await mailroom.close();
    }
  });
});

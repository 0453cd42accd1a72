import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { renderReactEmail } from '../../src/input/react.js';
import { isCliError } from '../../src/errors.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'react');

async function failure(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isCliError(err)).toBe(true);
  return err as { kind: string; message: string };
}

describe('renderReactEmail', () => {
  it('renders a TSX component with props to HTML and plain text', async () => {
    const out = await renderReactEmail('Welcome.tsx', { name: 'Ada', plan: 'pro' }, fixtures);
    expect(out.html).toMatch(/^<!DOCTYPE html/);
    expect(out.html).toContain('<h1>Welcome, <!-- -->Ada<!-- -->!</h1>');
    expect(out.html).toContain('pro');
    expect(out.text).toContain('WELCOME, ADA!');
    expect(out.text).not.toContain('<');
  });

  it('uses the component defaults when no props are given', async () => {
    const out = await renderReactEmail(join(fixtures, 'Welcome.tsx'), {}, '/');
    expect(out.html).toContain('friend');
  });

  it('reports a syntax error as a usage error naming the file and line', async () => {
    const err = await failure(renderReactEmail('Broken.jsx', {}, fixtures));
    expect(err.kind).toBe('usage');
    expect(err.message).toMatch(/^--react: cannot build Broken\.jsx: .+Broken\.jsx:\d+\)$/);
    expect(err.message).not.toContain('\n');
  });

  it('rejects a file without a component, a missing file and a wrong extension', async () => {
    expect((await failure(renderReactEmail('NoComponent.jsx', {}, fixtures))).message).toMatch(/exports no component/);
    expect((await failure(renderReactEmail('Missing.tsx', {}, fixtures))).message).toBe('--react: cannot read Missing.tsx: no such file');
    expect((await failure(renderReactEmail('email.html', {}, fixtures))).message).toBe('--react: email.html must be a .tsx or .jsx file');
  });
});

import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { renderReactEmail } from '../../src/render/react-email.js';
import { isMailroomError } from '../../src/errors.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'react');

async function failure(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMailroomError(err)).toBe(true);
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
    expect(err.kind).toBe('validation');
    expect(err.message).toMatch(/^--react: cannot build Broken\.jsx: .+Broken\.jsx:\d+\)$/);
    expect(err.message).not.toContain('\n');
  });

  it('rejects a file without a component, a missing file and a wrong extension', async () => {
    expect((await failure(renderReactEmail('NoComponent.jsx', {}, fixtures))).message).toMatch(/exports no component/);
    expect((await failure(renderReactEmail('Missing.tsx', {}, fixtures))).message).toBe('--react: cannot read Missing.tsx: no such file');
    expect((await failure(renderReactEmail('email.html', {}, fixtures))).message).toBe('--react: email.html must be a .tsx or .jsx file');
  });
});

describe('renderReactEmail: whose React', () => {
  it("uses the component project's renderer and React when it has them installed", async () => {
    const { mkdtemp, mkdir, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const project = await mkdtemp(join(tmpdir(), 'mailroom-user-project-'));
    const pkg = async (name: string, files: Record<string, string>) => {
      const dir = join(project, 'node_modules', name);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0', main: 'index.js' }));
      for (const [f, text] of Object.entries(files)) await writeFile(join(dir, f), text);
    };
    // Stand-ins that label their output, so the test can tell whose packages rendered it.
    await pkg('react', {
      'index.js': 'exports.createElement = (type, props) => ({ type, props });',
      'jsx-runtime.js': 'exports.jsx = exports.jsxs = (type, props) => ({ type, props }); exports.Fragment = "f";',
    });
    await pkg('react-dom', { 'index.js': '', 'server.js': '' });
    await pkg('@react-email/render', {
      'index.js': 'exports.render = async (el, o) => (o && o.plainText ? "user text" : "<p>user renderer: " + el.props.name + "</p>");',
    });
    await writeFile(join(project, 'Email.jsx'), 'export default function Email({ name }) { return <p>{name}</p>; }');
    const out = await renderReactEmail('Email.jsx', { name: 'Ada' }, project);
    expect(out).toEqual({ html: '<p>user renderer: Ada</p>', text: 'user text' });
  });
});

describe('renderReactEmail: a project with React but no renderer', () => {
  it("renders with mailroom's whole stack, never mixing in the project's React", async () => {
    const { mkdtemp, mkdir, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const project = await mkdtemp(join(tmpdir(), 'mailroom-react-only-'));
    const react = join(project, 'node_modules', 'react');
    await mkdir(react, { recursive: true });
    await writeFile(join(react, 'package.json'), JSON.stringify({ name: 'react', version: '0.0.0', main: 'index.js' }));
    await writeFile(join(react, 'index.js'), 'throw new Error("the project React was loaded");');
    await writeFile(join(react, 'jsx-runtime.js'), 'throw new Error("the project React was loaded");');
    await writeFile(join(project, 'Email.jsx'), 'export default function Email({ name }) { return <p>Hi {name}</p>; }');
    const out = await renderReactEmail('Email.jsx', { name: 'Ada' }, project);
    expect(out.html).toContain('<p>Hi <!-- -->Ada</p>');
  });
});

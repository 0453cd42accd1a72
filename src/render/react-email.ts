import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile, access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin, build as esbuildBuild } from 'esbuild';
import type { render as renderEmail } from '@react-email/render';
import { MailroomError, usageError } from '../errors.js';

export interface RenderedEmail {
  html: string;
  text: string;
}

/**
 * Renders a React email component (default export, or the only exported function) to HTML, locally:
 * the spec's third way of sending is "the caller renders, the service receives html".
 *
 * esbuild bundles the component with `react` and `@react-email/render` into one temporary module, so
 * the component and the renderer share one React. All four are optional peer dependencies of
 * mailroom (the React stack is most of an install's size, for one flag): the component's own project
 * wins when it has the renderer installed; otherwise react, react-dom and the renderer all come from
 * next to mailroom (never a mix: two Reacts in one render break it). esbuild likewise comes from the
 * project first. Anything else the component imports resolves from its project first, then mailroom's.
 */
export async function renderReactEmail(file: string, props: Record<string, unknown>, cwd: string, label = '--react'): Promise<RenderedEmail> {
  const entry = resolve(cwd, file);
  if (!/\.(tsx|jsx|ts|js|mjs)$/.test(entry)) throw usageError(`${label}: ${file} must be a .tsx or .jsx file`);
  try {
    await access(entry);
  } catch {
    throw usageError(`${label}: cannot read ${file}: no such file`);
  }
  const stack = findRenderStack(entry, label);
  const { build } = (await import(pathToFileURL(stack.esbuild).href)) as { build: typeof esbuildBuild };
  const shim = `
import * as mod from ${JSON.stringify('./' + basename(entry))};
import { createElement } from 'react';
import { render } from '@react-email/render';
const exported = Object.values(mod).filter((v) => typeof v === 'function');
const Component = typeof mod.default === 'function' ? mod.default : exported.length === 1 ? exported[0] : undefined;
export default async function renderEmail(props) {
  if (!Component) throw new Error('the file exports no component: export default function Email(props) { ... }');
  const element = createElement(Component, props);
  return { html: await render(element), text: await render(element, { plainText: true }) };
}`;
  let code: string;
  try {
    const result = await build({
      stdin: { contents: shim, resolveDir: dirname(entry), sourcefile: 'mailroom-react-entry.mjs', loader: 'js' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      jsx: 'automatic',
      nodePaths: stack.reactDir ? [dirname(stack.reactDir)] : [],
      plugins: stack.reactDir ? [renderStackFrom(stack.reactDir)] : [],
      define: { 'process.env.NODE_ENV': '"production"' },
      // react-dom/server requires Node built-ins; an ESM bundle needs a real require for them.
      banner: { js: "import { createRequire as __mrRequire } from 'node:module'; const require = __mrRequire(import.meta.url);" },
      logLevel: 'silent',
    });
    code = result.outputFiles[0]!.text;
  } catch (err) {
    const first = (err as { errors?: Array<{ text: string; location?: { file: string; line: number } | null }> }).errors?.[0];
    const where = first?.location ? ` (${first.location.file}:${first.location.line})` : '';
    throw usageError(`${label}: cannot build ${file}: ${first?.text ?? String(err)}${where}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'mailroom-react-'));
  try {
    const out = join(dir, 'email.mjs');
    await writeFile(out, code);
    const mod = (await import(pathToFileURL(out).href)) as { default: (p: Record<string, unknown>) => Promise<RenderedEmail> };
    return await mod.default(props);
  } catch (err) {
    if (err instanceof MailroomError) throw err;
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw usageError(`${label}: rendering ${file} failed: ${message}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const RENDER_NAMES = ['react', 'react-dom', '@react-email/render'] as const;
/** The optional peer dependencies `--react` needs, in the order the install command names them. */
export const REACT_PEERS = ['esbuild', ...RENDER_NAMES] as const;

interface RenderStack {
  /** esbuild's entry file. */
  esbuild: string;
  /** mailroom's react directory when the render stack comes from mailroom's side; absent: the project's. */
  reactDir?: string;
}

function resolvable(from: string, name: string): string | undefined {
  try {
    return createRequire(from).resolve(name);
  } catch {
    return undefined;
  }
}

/** Where each part of the stack comes from, or a usage error naming what is missing and how to install it. */
function findRenderStack(entry: string, label: string): RenderStack {
  const own = import.meta.url;
  const esbuild = resolvable(entry, 'esbuild') ?? resolvable(own, 'esbuild');
  const renderFrom = (from: string) => ['@react-email/render', 'react', 'react-dom/server'].every((name) => resolvable(from, name));
  const projectHas = renderFrom(entry);
  const ownHas = !projectHas && renderFrom(own);
  if (esbuild && (projectHas || ownHas)) return { esbuild, reactDir: ownHas ? dirname(createRequire(own).resolve('react/package.json')) : undefined };

  const missing = REACT_PEERS.filter((name) => !(name === 'esbuild' ? esbuild : (resolvable(entry, name) ?? resolvable(own, name))));
  const needs = `${label} needs ${listed(REACT_PEERS)}`;
  const what = missing.length === REACT_PEERS.length ? `${needs}, which are not installed` : `${needs}: ${listed(missing.length ? missing : RENDER_NAMES)} ${missing.length === 1 ? 'is' : 'are'} not installed`;
  throw usageError(what, [`in the component's project: npm install --save-dev ${REACT_PEERS.join(' ')}`, `or next to mailroom: ${installNextToMailroom()} ${REACT_PEERS.join(' ')}`]);
}

const listed = (names: readonly string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The npm command that installs packages where mailroom's own modules resolve them from. */
function installNextToMailroom(): string {
  let root = dirname(fileURLToPath(import.meta.url));
  while (!isMailroomPackage(root) && dirname(root) !== root) root = dirname(root);
  const parent = dirname(root);
  if (basename(parent) !== 'node_modules') return `npm install --no-save --prefix ${shellWord(root)}`;
  const owner = dirname(parent);
  // A global install: <prefix>/lib/node_modules (Unix) or <prefix>/node_modules (Windows), no project around it.
  if (existsSync(join(owner, 'package.json'))) return `npm install --save-dev --prefix ${shellWord(owner)}`;
  // --ignore-scripts: none of the peers needs its install script (esbuild's only re-checks its binary),
  // and npm warns about unreviewed scripts in a global install.
  return `npm install -g --prefix ${shellWord(process.platform === 'win32' ? owner : dirname(owner))} --ignore-scripts`;
}

function isMailroomPackage(dir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'mailroom-cli';
  } catch {
    return false;
  }
}

const RENDER_STACK = /^(react|react-dom|@react-email\/render)(\/.*)?$/;

/** Resolves react, react-dom and the renderer from mailroom's install, wherever they are imported. */
function renderStackFrom(reactDir: string): Plugin {
  return {
    name: 'mailroom-render-stack',
    setup(b) {
      b.onResolve({ filter: RENDER_STACK }, async (args) => {
        if (args.pluginData === 'mailroom') return undefined;
        const found = await b.resolve(args.path, { resolveDir: reactDir, kind: args.kind, pluginData: 'mailroom' });
        return found.errors.length ? { errors: found.errors } : { path: found.path };
      });
    },
  };
}

/**
 * Renders a React element the caller built (the library's `emails.send({ react })`) with the
 * caller's own @react-email/render, so element and renderer share the caller's React.
 */
export async function renderReactElement(element: unknown, label: string): Promise<RenderedEmail> {
  let render: typeof renderEmail;
  try {
    ({ render } = await import('@react-email/render'));
  } catch {
    throw usageError(`${label} needs ${listed(RENDER_NAMES)}, which are not installed`, [`npm install ${RENDER_NAMES.join(' ')}`]);
  }
  try {
    const node = element as Parameters<typeof render>[0];
    return { html: await render(node), text: await render(node, { plainText: true }) };
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw usageError(`${label}: rendering the element failed: ${message}`);
  }
}

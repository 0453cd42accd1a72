import { mkdtemp, rm, writeFile, access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { CliError, usageError } from '../errors.js';

export interface RenderedEmail {
  html: string;
  text: string;
}

/**
 * Renders a React email component (default export, or the only exported function) to HTML, locally:
 * the spec's third way of sending is "the caller renders, the service receives html".
 *
 * esbuild bundles the component with `react` and `@react-email/render` into one temporary module, so
 * the component and the renderer share one React. The component's own project wins when it has the
 * renderer installed; otherwise react, react-dom and the renderer all come from mailroom's install
 * (never a mix: two Reacts in one render break it), so a plain JSX file needs nothing installed.
 * Anything else the component imports resolves from its project first, then from mailroom's.
 */
export async function renderReactEmail(file: string, props: Record<string, unknown>, cwd: string): Promise<RenderedEmail> {
  const entry = resolve(cwd, file);
  if (!/\.(tsx|jsx|ts|js|mjs)$/.test(entry)) throw usageError(`--react: ${file} must be a .tsx or .jsx file`);
  try {
    await access(entry);
  } catch {
    throw usageError(`--react: cannot read ${file}: no such file`);
  }
  const { build } = await import('esbuild');
  const mailroomRoot = mailroomPackageRoot();
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
      nodePaths: [dirname(mailroomRoot)],
      plugins: userHasRenderer(entry) ? [] : [renderStackFrom(mailroomRoot)],
      define: { 'process.env.NODE_ENV': '"production"' },
      // react-dom/server requires Node built-ins; an ESM bundle needs a real require for them.
      banner: { js: "import { createRequire as __mrRequire } from 'node:module'; const require = __mrRequire(import.meta.url);" },
      logLevel: 'silent',
    });
    code = result.outputFiles[0]!.text;
  } catch (err) {
    const first = (err as { errors?: Array<{ text: string; location?: { file: string; line: number } | null }> }).errors?.[0];
    const where = first?.location ? ` (${first.location.file}:${first.location.line})` : '';
    throw usageError(`--react: cannot build ${file}: ${first?.text ?? String(err)}${where}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'mailroom-react-'));
  try {
    const out = join(dir, 'email.mjs');
    await writeFile(out, code);
    const mod = (await import(pathToFileURL(out).href)) as { default: (p: Record<string, unknown>) => Promise<RenderedEmail> };
    return await mod.default(props);
  } catch (err) {
    if (err instanceof CliError) throw err;
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw usageError(`--react: rendering ${file} failed: ${message}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Where mailroom's own react lives (`…/node_modules/react`); its parent is the node_modules dir. */
function mailroomPackageRoot(): string {
  return dirname(createRequire(import.meta.url).resolve('react/package.json'));
}

function userHasRenderer(entry: string): boolean {
  const require = createRequire(entry);
  try {
    for (const name of ['@react-email/render', 'react', 'react-dom/server']) require.resolve(name);
    return true;
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

import { mkdtemp, rm, writeFile, access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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
 * the component and the renderer share one React. Packages resolve from the component's own project
 * first (its node_modules up the tree), then from mailroom's (`nodePaths`), so users need not install
 * anything to render a plain JSX component.
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
      nodePaths: [mailroomNodeModules()],
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

/** mailroom's own node_modules: where its react and @react-email/render are installed. */
function mailroomNodeModules(): string {
  const require = createRequire(import.meta.url);
  return dirname(dirname(require.resolve('react/package.json')));
}

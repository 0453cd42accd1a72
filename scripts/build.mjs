// Bundles the CLI into dist/ with code splitting: main.js holds only what `--help` needs; every
// command's heavy modules (undici, zod schemas, conf, the sandbox) land in chunks loaded on use.
import { build } from 'esbuild';
import { rm, readFile } from 'node:fs/promises';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });

const result = await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  metafile: true,
  chunkNames: 'chunks/[name]-[hash]',
  define: { __MAILROOM_VERSION__: JSON.stringify(pkg.version) },
  // CommonJS dependencies (undici, cli-table3) call require() on Node built-ins.
  banner: { js: "import { createRequire as __mailroomCreateRequire } from 'node:module'; const require = __mailroomCreateRequire(import.meta.url);" },
  // Optional native/peer modules that must stay external to the bundle.
  external: ['react', 'react-dom', 'react-dom/*', '@react-email/*', 'esbuild', 'fastify', 'pino', 'thread-stream'],
  logLevel: 'warning',
});

if (process.argv.includes('--analyze')) {
  const { analyzeMetafile } = await import('esbuild');
  console.log(await analyzeMetafile(result.metafile));
}

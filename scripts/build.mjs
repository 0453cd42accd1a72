// Bundles the CLI into dist/ with code splitting: main.js holds only what `--help` needs; every
// command's heavy modules (undici, zod schemas, conf, the sandbox) land in chunks loaded on use.
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { decode as decodeMappings, encode as encodeMappings } from '@jridgewell/sourcemap-codec';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

// The package's library entry points, one per subpath of package.json "exports": dist/<name>.js,
// declarations in dist/types/ (writeDeclarations below). A new entry is one line here and one in
// "exports".
const LIBRARY_ENTRIES = {
  // `import { Mailroom } from 'mailroom-cli'`
  index: 'src/library/index.ts',
  // `import { startSandbox } from 'mailroom-cli/sandbox'`
  sandbox: 'src/sandbox/library.ts',
};

const common = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __MAILROOM_VERSION__: JSON.stringify(pkg.version) },
  // CommonJS dependencies (undici, cli-table3) call require() on Node built-ins.
  banner: { js: "import { createRequire as __mailroomCreateRequire } from 'node:module'; const require = __mailroomCreateRequire(import.meta.url);" },
  // Optional native/peer modules that must stay external to the bundle; @napi-rs/keyring (native) is a
  // dependency installed beside dist/, required on first use (src/config/keychain.ts).
  external: ['react', 'react-dom', 'react-dom/*', '@react-email/*', 'esbuild', '@napi-rs/keyring'],
  logLevel: 'warning',
};

// Start-up time: swap two load-time requires that mailroom never uses for stand-ins
// (scripts/bundle-stubs/): undici's HTTP/2 client (node:http2 + tls, ~8 ms; mailroom never enables
// h2) and Commander's node:child_process (~3 ms; loaded lazily if ever used).
const bundleStubs = {
  name: 'bundle-stubs',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer) ? { path: resolve('scripts/bundle-stubs/undici-no-h2.cjs') } : undefined,
    );
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /commander[\\/]lib[\\/]command\.js$/.test(args.importer) ? { path: resolve('scripts/bundle-stubs/child-process.cjs') } : undefined,
    );
  },
};

/** The commands with a one-file bundle of their own (dist/fast/<command>.js; bin/mailroom.js FAST_COMMANDS). */
const FAST_COMMANDS = ['check', 'batch'];

/** For a one-command bundle: src/commands/index.ts loads that command's definition alone. */
function onlyCommand(name) {
  return {
    name: 'only-command',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]commands[\\/]index\.ts$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        const table = /const LOADERS = \{\n([\s\S]*?)\n\} satisfies/.exec(text);
        const line = table?.[1].split('\n').find((l) => l.trimStart().startsWith(`${name}: `));
        if (!line) throw new Error(`src/commands/index.ts: no LOADERS line for "${name}" (the fast bundle's build reads that table)`);
        return { contents: text.replace(table[0], `const LOADERS = {\n${line}\n} satisfies`), loader: 'ts' };
      });
    },
  };
}

/**
 * What the launcher never runs a fast bundle for (bin/mailroom.js, fastBundle), in its place: the
 * sandbox session (--sandbox), jq (--jq), undici's whole package (a proxy in the environment) and
 * its FormData body reader (mailroom sends JSON text only).
 */
const notInFastBundle = {
  name: 'not-in-fast-bundle',
  setup(b) {
    const missing = (args) => ({ path: args.path, namespace: 'not-in-fast-bundle' });
    b.onResolve({ filter: /^\.\/(sandbox\/session|output\/jq)\.js$/ }, (args) => (/[\\/]src[\\/]program\.ts$/.test(args.importer) ? missing(args) : undefined));
    b.onResolve({ filter: /^undici$/ }, (args) => (/[\\/]src[\\/]transport[\\/]agent\.ts$/.test(args.importer) ? missing(args) : undefined));
    b.onResolve({ filter: /^\.\.\/web\/fetch\/body\.js$/ }, (args) => (/undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/.test(args.importer) ? missing(args) : undefined));
    b.onLoad({ filter: /.*/, namespace: 'not-in-fast-bundle' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`internal error: ${args.path} is not in this bundle (bin/mailroom.js runs dist/main.js for it)`)});`,
      loader: 'js',
    }));
  },
};

/**
 * Third-party packages a fast bundle reaches only off its common path, by a dynamic import: the CSV
 * reader, tables and prompts. They are files of their own, dist/fast/vendor/<name>.js, imported from
 * there when first needed, so that the file Node reads and compiles at every start is smaller
 * (docs/development.md, "Batch speed and memory"). Only packages: they hold none of mailroom's
 * modules, so no second copy of its module state. Each file's contents re-export what src/ takes.
 */
const FAST_VENDOR = {
  'csv-parse': { file: 'csv-parse', contents: "export { parse } from 'csv-parse';" },
  'cli-table3': { file: 'cli-table3', contents: "export { default } from 'cli-table3';" },
  '@inquirer/confirm': { file: 'inquirer-confirm', contents: "export { default } from '@inquirer/confirm';" },
  '@inquirer/password': { file: 'inquirer-password', contents: "export { default } from '@inquirer/password';" },
};

const vendorFiles = {
  name: 'vendor-files',
  setup(b) {
    b.onResolve({ filter: /^(csv-parse|cli-table3|@inquirer\/confirm|@inquirer\/password)$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: `./vendor/${FAST_VENDOR[args.path].file}.js`, external: true } : undefined,
    );
  },
};

const docsOnly = process.argv.includes('--docs');
let files = [];
if (!docsOnly) {
  const result = await build({
    ...common,
    // complete.js: `mailroom __complete profiles`, run by the shell completion scripts on TAB.
    entryPoints: { main: 'src/main.ts', complete: 'src/complete.ts', ...LIBRARY_ENTRIES },
    outdir: 'dist',
    // Maps ship for stack traces under --verbose (bin/mailroom.js enables them then); their lines and
    // names are enough for that, the sources' text is not shipped.
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    // Written below, chunks first and each file by rename, so a CLI started mid-build never reads a
    // half-written file. Stale hashed chunks are harmless, and pruned when npm packs or installs (below).
    write: false,
    plugins: [bundleStubs],
  });

  files = [...result.outputFiles].sort((a, b) => Number(a.path.endsWith('/main.js')) - Number(b.path.endsWith('/main.js')));
  for (const file of files) {
    await mkdir(dirname(file.path), { recursive: true });
    const tmp = `${file.path}.${process.pid}.tmp`;
    await writeFile(tmp, file.path.endsWith('.map') ? thinSourceMap(file.text) : file.contents);
    await rename(tmp, file.path);
  }

  // dist/fast/<command>.js: `mailroom check` and `mailroom batch` each in one file, which
  // bin/mailroom.js runs for a plain run of that command (start-up time: Node loads each bundle file
  // on its own, and the split build's check loads 41 of them, batch 61, ~0.3 ms of CPU each;
  // docs/development.md, "Start-up time"). The same src/main.ts with only that command's definition,
  // not split, no source map: `--verbose` (stack traces), `--sandbox`, `--jq`, help and a proxy in the
  // environment are left to dist/main.js by the launcher, so the modules they need are not in these
  // files, and reaching one here is an internal error, never a second copy of mailroom's modules (its
  // held secrets are module state). One file per command: batch's modules (zod for an invalid entry,
  // the CSV reader) cost check its gain even unevaluated.
  //
  // Each is a CommonJS script, not an ES module, for one reason: bin/mailroom.js compiles it with
  // V8's code cache (node:vm `cachedData`), which Node 20 offers scripts only. A cached start skips
  // parsing the file and compiling the functions a run calls (bin/mailroom.js `runFast`). The script
  // has no `import()` of its own (a cached script cannot run one without an experimental flag): the
  // few packages loaded on demand come through `__mailroomImport`, which the launcher gives it, as it
  // gives `__mailroomUrl` for `import.meta.url`. Its first line names the build (a hash of its
  // content), which the launcher's cache files are keyed by.
  await mkdir(resolve('dist/fast'), { recursive: true });
  for (const command of FAST_COMMANDS) {
    const fast = await build({
      ...common,
      format: 'cjs',
      banner: {},
      define: { ...common.define, 'import.meta.url': '__mailroomUrl' },
      supported: { 'dynamic-import': true },
      splitting: false,
      // Shorter names and syntax (check: 576 KB instead of 726 KB: install size); whitespace and the
      // `// path` line above each module kept (test/e2e/help.test.ts reads them). Function and class
      // names are not kept: keeping them costs a defineProperty call per function at start-up (about
      // 5 ms of a 50-entry batch), and nothing on these paths reads them (mailroom's errors name
      // themselves, errors.ts `named`; a stack trace is --verbose, which runs dist/main.js).
      minifySyntax: true,
      minifyIdentifiers: true,
      entryPoints: { [command]: 'src/main.ts' },
      outdir: 'dist/fast',
      write: false,
      plugins: [bundleStubs, onlyCommand(command), notInFastBundle, vendorFiles],
    });
    for (const file of fast.outputFiles) await writeAtomically(file.path, fastScript(file.text));
  }
  const vendor = await build({
    ...common,
    splitting: false,
    minifySyntax: true,
    minifyIdentifiers: true,
    keepNames: true,
    entryPoints: Object.values(FAST_VENDOR).map(({ file }) => ({ in: `vendor-entry:${file}`, out: file })),
    outdir: 'dist/fast/vendor',
    write: false,
    plugins: [
      {
        name: 'vendor-entries',
        setup(b) {
          b.onResolve({ filter: /^vendor-entry:/ }, (args) => ({ path: args.path.slice('vendor-entry:'.length), namespace: 'vendor-entry' }));
          b.onLoad({ filter: /.*/, namespace: 'vendor-entry' }, (args) => ({
            contents: Object.values(FAST_VENDOR).find(({ file }) => file === args.path).contents,
            resolveDir: process.cwd(),
            loader: 'js',
          }));
        },
      },
    ],
  });
  await mkdir(resolve('dist/fast/vendor'), { recursive: true });
  for (const file of vendor.outputFiles) await writeAtomically(file.path, file.contents);

  // The library entries' types, beside their code (package.json "exports" names them).
  await writeDeclarations(Object.values(LIBRARY_ENTRIES));

// The bundled packages' licenses travel with their code (they are not installed next to it).
  await writeAtomically(resolve('dist/THIRD-PARTY-LICENSES.txt'), await thirdPartyLicenses(result.metafile));

  // jq for --jq (src/output/jq.ts): its WebAssembly as the binary file it is, beside the bundle
  // (0.9 MB; jq-wasm's inline build carries it as base64 text, 1.4 MB).
  await writeAtomically(resolve('dist/jq.wasm'), await readFile(resolve('node_modules/jq-wasm/dist/build/jq.wasm')));

  if (process.argv.includes('--analyze')) {
    const { analyzeMetafile } = await import('esbuild');
    console.log(await analyzeMetafile(result.metafile));
  }
}

// dist/help.json: every help screen as the program prints it, so bin/mailroom.js answers --help and
// --version without loading Commander (start-up time). Rendered by the real program, built on its own
// so that main.js keeps its layout; written last, and atomically like the rest. The manual comes from
// the same screens and tree (src/build/help-reference.ts): dist/mailroom.1 (the package's `man`), and
// docs/reference/ with the README's command list, which a test compares with what is committed.
const catalogDir = resolve(`dist/.help-catalog-${process.pid}`);
await build({ ...common, entryPoints: { catalog: 'src/build/help-catalog.ts', reference: 'src/build/help-reference.ts' }, outdir: catalogDir });
try {
  const { renderHelpCatalog } = await import(pathToFileURL(join(catalogDir, 'catalog.js')).href);
  const { renderReference, withReadmeCommands } = await import(pathToFileURL(join(catalogDir, 'reference.js')).href);
  const catalog = await renderHelpCatalog();
  const reference = await renderReference(catalog);
  await writeIfChanged(resolve('dist/mailroom.1'), reference.manPage);
  await writeReference(reference, withReadmeCommands);
  if (!docsOnly) await writeAtomically(resolve('dist/help.json'), `${JSON.stringify(catalog)}\n`);
} finally {
  await rm(catalogDir, { recursive: true, force: true });
}

// `npm pack` runs this as `prepack`, `npm ci` as `dependencies` (not `prepare`: npm counts that as an
// install script of the packed package): leave no chunk of an earlier build in the package.
if (!docsOnly && (['prepack', 'dependencies'].includes(process.env.npm_lifecycle_event) || process.argv.includes('--prune'))) {
  const keep = new Set(files.map((f) => f.path));
  for (const name of await readdir(resolve('dist/chunks'))) {
    const path = resolve('dist/chunks', name);
    if (!keep.has(path)) await rm(path, { force: true });
  }
  // A command no longer in FAST_COMMANDS leaves no one-file bundle behind either.
  for (const name of await readdir(resolve('dist/fast'))) {
    if (name !== 'vendor' && !FAST_COMMANDS.some((command) => name === `${command}.js`)) await rm(resolve('dist/fast', name), { force: true });
  }
  for (const name of await readdir(resolve('dist/fast/vendor'))) {
    if (!Object.values(FAST_VENDOR).some(({ file }) => name === `${file}.js`)) await rm(resolve('dist/fast/vendor', name), { force: true });
  }
}

/**
 * A fast bundle as bin/mailroom.js runs it: its on-demand packages imported through the launcher
 * (`__mailroomImport`), and a first line naming the build.
 */
function fastScript(text) {
  const body = text.replace(/\bimport\((["'])\.\/vendor\//g, '__mailroomImport($1./vendor/');
  const left = /\bimport\(\s*["'`]/.exec(body.replace(/^\s*(\/\/|\*).*$/gm, ''));
  if (left) throw new Error(`a fast bundle still holds a dynamic import: ${body.slice(left.index, left.index + 80)}`);
  const id = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return `// mailroom-build ${id}\n${body}`;
}

/**
 * A source map that keeps every mapping into mailroom's own sources and, for bundled packages, the
 * first of each generated line: a --verbose stack trace still names the package's file and line,
 * at a sixth of the size (the maps of node_modules code were 2.9 of 3.6 MB: install size).
 */
function thinSourceMap(text) {
  const map = JSON.parse(text);
  const bundled = map.sources.map((source) => /(^|\/)node_modules\//.test(source));
  const lines = decodeMappings(map.mappings).map((line) => {
    let sawBundled = false;
    return line.filter((segment) => {
      if (segment.length === 1) return true;
      if (!bundled[segment[1]]) {
        sawBundled = false;
        return true;
      }
      if (sawBundled) return false;
      sawBundled = true;
      return true;
    });
  });
  return JSON.stringify({ ...map, mappings: encodeMappings(lines) });
}

/** Writes `text` unless the file already holds it (a build leaves unchanged docs untouched). */
async function writeIfChanged(path, text) {
  const old = await readFile(path, 'utf8').catch(() => undefined);
  if (old === text) return;
  await mkdir(dirname(path), { recursive: true });
  await writeAtomically(path, text);
}

/** docs/reference/ becomes exactly the generated pages (a page of a removed command goes), and the README's command list is replaced. */
async function writeReference(reference, withReadmeCommands) {
  const dir = resolve('docs/reference');
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(reference.pages)) await writeIfChanged(join(dir, name), text);
  for (const name of await readdir(dir)) if (!Object.hasOwn(reference.pages, name)) await rm(join(dir, name), { force: true });
  const readme = resolve('README.md');
  await writeIfChanged(readme, withReadmeCommands(await readFile(readme, 'utf8'), reference.readmeCommands));
}

async function writeAtomically(path, text) {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/**
 * dist/types/<path under src>.d.ts for each entry and the modules its declarations import, each
 * declared on its own (TypeScript's transpileDeclaration: the entry states its types, nothing is
 * inferred across files), and no other file. A declaration importing anything but these files
 * would send users' type checkers looking for packages they do not have (the bundle's own
 * dependencies): refused.
 */
async function writeDeclarations(entries) {
  const ts = (await import('typescript')).default;
  const queue = entries.map((e) => resolve(e));
  const done = new Set();
  while (queue.length > 0) {
    const file = queue.shift();
    if (done.has(file)) continue;
    done.add(file);
    const out = ts.transpileDeclaration(await readFile(file, 'utf8'), {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2023 },
    });
    const problems = out.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '));
    if (problems.length > 0) throw new Error(`declarations of ${file}: ${problems.join('; ')}`);
    for (const [, spec] of out.outputText.matchAll(/\bfrom\s+['"]([^'"]+)['"]/g)) {
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('./') && !spec.startsWith('../')) throw new Error(`declarations of ${file} import ${spec}, which the package's users do not have (it is bundled): public types must come from mailroom's own files`);
      queue.push(join(dirname(file), spec.replace(/\.js$/, '.ts')));
    }
    await mkdir(dirname(declarationPath(file)), { recursive: true });
    await writeAtomically(declarationPath(file), out.outputText);
  }
  // A declaration no entry reaches any more (a module renamed since an earlier build) would ship
  // in the package all the same: dist/types holds what was just written, nothing else.
  const written = new Set([...done].map(declarationPath));
  for (const name of await readdir(resolve('dist/types'), { recursive: true })) {
    const path = resolve('dist/types', name);
    if (path.endsWith('.d.ts') && !written.has(path)) await rm(path, { force: true });
  }
}

function declarationPath(source) {
  return resolve('dist/types', source.slice(resolve('src').length + 1).replace(/\.ts$/, '.d.ts'));
}

async function thirdPartyLicenses(metafile) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  const sections = [];
  for (const dir of [...dirs].sort()) {
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    const licenseFile = (await readdir(dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = licenseFile ? (await readFile(join(dir, licenseFile), 'utf8')).trim() : `License: ${pkg.license ?? 'see the package'}`;
    sections.push(`${pkg.name}@${pkg.version} (${pkg.license ?? 'unknown'})\n\n${text}`);
  }
  return `mailroom bundles these packages into dist/; their licenses follow.\n\n${sections.join(`\n\n${'-'.repeat(72)}\n\n`)}\n`;
}

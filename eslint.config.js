import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test/fixtures/**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', performance: 'readonly', fetch: 'readonly', structuredClone: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The launcher is CommonJS (bin/package.json) so that --help never starts the ES module loader.
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Only exit.ts ends the process (after stdout and stderr drain); everything else throws or returns.
    files: ['src/**/*.ts'],
    ignores: ['src/exit.ts'],
    rules: { 'no-restricted-properties': ['error', { object: 'process', property: 'exit', message: 'Throw a CliError; run() maps it to an exit code and src/exit.ts ends the process once stdout has drained.' }] },
  },
  {
    // zod's `z` is a namespace object holding every export: importing it keeps all of zod (750 KB)
    // in the bundle; `import * as z from 'zod'` lets esbuild keep only what is used (about 210 KB).
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']", message: "import * as z from 'zod': the z object keeps all of zod in the bundle." }],
    },
  },
  {
    // Files mailroom writes go through output/files.ts, which masks secrets (secrets.ts), as stdout
    // and stderr do. The config store and the sandbox's state hold keys by design, as does the env
    // file `webhooks listen --write-env` writes for the app; the React compile step writes a
    // temporary module.
    files: ['src/**/*.ts'],
    ignores: ['src/output/files.ts', 'src/config/store.ts', 'src/sandbox/persistence.ts', 'src/sandbox/durable-log.ts', 'src/render/react-email.ts', 'src/webhook/token-env-file.ts', 'src/config/sandbox-address.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        ...['node:fs', 'node:fs/promises', 'fs', 'fs/promises'].map((name) => ({
          name,
          importNames: ['writeSync', 'writeFileSync', 'appendFileSync', 'createWriteStream', 'writeFile', 'appendFile', 'write', 'writev', 'writevSync'],
          message: 'Write files through output/files.ts: it masks secrets (secrets.ts).',
        })),
      ],
    },
  },
);

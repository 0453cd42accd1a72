/**
 * Import direction (docs/architecture.md): a layer imports only the layers below it, dynamic
 * import() included, and no module imports itself back through a circle.
 *
 *   commands (src/commands, program, run, main, help, completion)
 *     → library (src/library: the typed client the package exports)
 *     → features (src/batch, src/webhook, src/api, src/sandbox)
 *       → transport (src/transport, src/client.ts)
 *         → config | output | input | render
 *           → schema | count | errors | files | context | secrets | version
 */
const COMMANDS = '^src/(commands/|completion/|program\\.ts|run\\.ts|main\\.ts|complete\\.ts|help-[^/]+\\.ts|report\\.ts)';
const FEATURES = '^src/(batch|webhook|api|sandbox)/';
const TRANSPORT = '^src/(transport/|client\\.ts)';
const MIDDLE = '^src/(config|output|input|render)/';
const LIBRARY = '^src/library/';
const BASE = '^src/(schema/|count\\.ts|errors\\.ts|files\\.ts|context\\.ts|secrets\\.ts|types\\.ts|version\\.ts|until-stopped\\.ts)';

const below = (name, from, to) => ({ name, severity: 'error', comment: `${name}: imports go down the layers only`, from: { path: from }, to: { path: to } });

export default {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    below('library-not-up', LIBRARY, COMMANDS),
    below('features-not-up', FEATURES, `${COMMANDS}|${LIBRARY}`),
    below('transport-not-up', TRANSPORT, `${COMMANDS}|${LIBRARY}|${FEATURES}`),
    below('middle-not-up', MIDDLE, `${COMMANDS}|${LIBRARY}|${FEATURES}|${TRANSPORT}`),
    below('base-not-up', BASE, `${COMMANDS}|${LIBRARY}|${FEATURES}|${TRANSPORT}|${MIDDLE}`),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6', 'cjs'],
  },
};

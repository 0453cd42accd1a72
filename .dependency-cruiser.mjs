/**
 * Import direction (docs/internals.md, "Layers"): a layer imports only the layers below it,
 * static, type-only (tsPreCompilationDeps) and dynamic import() alike, and no module imports
 * itself back through a circle.
 *
 *   commands (src/commands with the command context, program, run, main, exit, exit-codes, help, completion, report)
 *     → library (src/library: the typed client the package exports)
 *     → features: batch, webhook, api, lint, and the sandbox through its launch modules
 *       → transport (src/transport)
 *         → config | output | input | render
 *           → base: schema | errors | context | count | files | secrets | types | version | until-stopped | v8-flags
 *
 * Across the layers, the line between the core and the CLI: the core (api, batch, webhook, sandbox,
 * lint, transport, schema, library) runs the same under the command and in other people's
 * programs, so it imports nothing of the CLI (commands and their context, printers, prompts).
 *
 * src/build/ (the help catalogue and the generated reference) runs at build time only, above
 * everything; nothing at run time imports it.
 */
const COMMANDS = '^src/(commands/|completion/|program\\.ts$|run\\.ts$|main\\.ts$|exit\\.ts$|complete\\.ts$|help-(layout|topics)\\.ts$|report-error\\.ts$|exit-codes\\.ts$)';
const BUILD = '^src/build/';
const LIBRARY = '^src/library/';
const FEATURES = '^src/(batch|webhook|api|sandbox|lint)/';
const TRANSPORT = '^src/transport/';
const MIDDLE = '^src/(config|output|input|render)/';
const BASE = '^src/(schema/|plural\\.ts$|errors\\.ts$|files\\.ts$|context\\.ts$|secrets\\.ts$|types\\.ts$|version\\.ts$|until-stopped\\.ts$|v8-flags\\.ts$)';
// The core/CLI line (docs/internals.md, "The core and the CLI").
const CORE = '^src/(api|batch|webhook|sandbox|lint|transport|schema|library)/';
const CLI = `${COMMANDS}|^src/(output/(print|resources|document|mode|color|jq|fields|progress|index)\\.ts$|input/(prompter|confirm)\\.ts$)`;
const LAYERED = [COMMANDS, BUILD, LIBRARY, FEATURES, TRANSPORT, MIDDLE, BASE].join('|');

const rule = (name, comment, from, to) => ({ name, severity: 'error', comment, from, to });
const below = (name, from, to) => rule(name, `${name}: imports go down the layers only`, { path: from }, { path: to });

export default {
  forbidden: [
    rule('no-circular', 'no import circles, whatever the layers', {}, { circular: true }),
    rule('not-to-unresolvable', 'every import (a dynamic import() included) resolves to a file or package', {}, { couldNotResolve: true }),
    rule('in-a-layer', 'every module of src/ belongs to a layer above: add a new folder to one', { path: '^src/', pathNot: LAYERED }, {}),
    rule('build-time-only', 'src/build/ runs in scripts/build.mjs only; nothing at run time imports it', { pathNot: BUILD }, { path: BUILD }),

    below('library-not-up', LIBRARY, `${COMMANDS}|${BUILD}`),
    below('features-not-up', FEATURES, `${COMMANDS}|${BUILD}|${LIBRARY}`),
    below('transport-not-up', TRANSPORT, `${COMMANDS}|${BUILD}|${LIBRARY}|${FEATURES}`),
    below('middle-not-up', MIDDLE, `${COMMANDS}|${BUILD}|${LIBRARY}|${FEATURES}|${TRANSPORT}`),
    below('base-not-up', BASE, `${COMMANDS}|${BUILD}|${LIBRARY}|${FEATURES}|${TRANSPORT}|${MIDDLE}`),

    // Within the features row: api is the typed calls everything else builds on; batch and webhook
    // use api, not each other; the sandbox is a server, so it shares only the wire schemas and the
    // webhook signing/samples with the client, never its HTTP side.
    rule('api-is-the-lowest-feature', 'api/ imports no other feature', { path: '^src/api/' }, { path: '^src/(batch|webhook|sandbox)/' }),
    rule('batch-not-webhook-or-sandbox', 'batch/ uses api/, not the other features', { path: '^src/batch/' }, { path: '^src/(webhook|sandbox)/' }),
    rule('webhook-not-batch-or-sandbox', 'webhook/ uses api/, not the other features', { path: '^src/webhook/' }, { path: '^src/(batch|sandbox)/' }),
    rule('lint-on-its-own', 'lint/ checks emails; it sends nothing, so it needs no other feature', { path: '^src/lint/' }, { path: '^src/(api|batch|webhook|sandbox)/' }),
    rule('sandbox-not-the-client', 'the emulator does not call the API it emulates', { path: '^src/sandbox/' }, { path: `^src/(api|batch)/|${TRANSPORT}` }),
    rule('sandbox-through-its-launch', 'outside src/sandbox/, only its launch modules and public types are imported', { pathNot: '^src/sandbox/' }, { path: '^src/sandbox/', pathNot: '^src/sandbox/(index|session|public-types)\\.ts$' }),

    // The transport needs the settings (config) and nothing else of its row: it prints nothing itself.
    rule('transport-over-config-only', 'transport/ reads settings from config/; printing and input are the callers\'', { path: '^src/transport/' }, { path: '^src/(output|input|render)/' }),

    // The core runs under the command and in other people's programs alike: what it says and asks
    // goes through its callers (errors, a warn function, options), never the CLI's own modules.
    rule('core-not-cli', 'core modules (api, batch, webhook, sandbox, lint, transport, schema, library) import no CLI module: commands and the command context, printers, prompts', { path: CORE }, { path: CLI }),
    // The library runs in other people's programs: no profile store or output of any kind either.
    rule('library-not-the-cli', 'the library takes its settings as options, not from the CLI\'s profiles, prompts or printers', { path: LIBRARY }, { path: '^src/(config/(?!(url|environment)\\.ts$)|input/prompter\\.ts$|output/)' }),
    // Commands reach the library through one module, which builds the client over the command's transport.
    rule('commands-through-api-client', 'commands use the library through src/commands/shared/api-client.ts', { path: COMMANDS, pathNot: '^src/commands/shared/api-client\\.ts$' }, { path: LIBRARY }),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6', 'cjs'],
    // As Node resolves (packages' "exports"), so that not-to-unresolvable holds for ESM-only packages (conf).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default', 'types'], mainFields: ['module', 'main', 'types'] },
  },
};

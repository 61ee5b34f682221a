// `npm run lint`. The rule set stays small: the recommended rules, promises
// that nobody awaits, and the layers of ARCHITECTURE.md ("What each folder may
// import"): a folder imports only the folders listed for it below.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/** The layers, lowest first, and the other `src/` folders each may import. */
const LAYERS = {
  // Small helpers every layer may need (why a connection failed, where running servers register, calls run in batches).
  shared: [],
  domain: [],
  store: ['domain', 'shared'],
  webhooks: ['domain', 'store', 'shared'],
  service: ['domain', 'store', 'webhooks', 'shared'],
  // The PostgreSQL store: the storage interface of src/service over node-postgres.
  postgres: ['domain', 'store', 'service', 'shared'],
  // The pages and the module that serves their files; only the server serves them.
  web: [],
  server: ['domain', 'store', 'webhooks', 'service', 'web', 'shared', 'postgres'],
  // The client speaks HTTP to the server; it shares the domain's types, not the server's code.
  client: ['domain', 'shared'],
  // Scenario runs: what `scenario run` and `sim.runScenario` share, through the client like a user's script.
  scenarios: ['domain', 'client', 'webhooks', 'shared'],
  cli: ['domain', 'client', 'webhooks', 'scenarios', 'shared'],
  // `serve`'s run, shared by its oclif command and the lean path of bin/run.js, which loads it without oclif; `exec`'s.
  serve: ['domain', 'cli', 'server', 'shared'],
  // `serve`, `exec` and `openapi` start and describe the server; every other command goes through the client.
  commands: ['domain', 'client', 'cli', 'webhooks', 'scenarios', 'server', 'serve', 'shared'],
}

/** The files at the top of `src/`: the package's entry points, above every layer but the CLI. */
const ENTRIES = {
  files: ['src/index.ts', 'src/testing.ts', 'src/msw.ts', 'src/simulator-controls.ts'],
  allowed: ['domain', 'store', 'webhooks', 'service', 'server', 'client', 'scenarios', 'shared'],
}

const FOLDERS = Object.keys(LAYERS)

// The domain is pure: no I/O. Random ids (node:crypto) are its only node import.
const PURE = {
  group: ['node:*', '!node:crypto', 'fs', 'fs/*', 'path', 'os', 'http', 'https', 'net', 'child_process'],
  message: 'src/domain is pure: I/O belongs to the layers above it (ARCHITECTURE.md).',
}

// zod's package index exports every locale: a named import keeps them all in the serve command's bundle,
// a namespace import lets the bundler keep only what is used (docs/benchmarks.md, "Start-up of serve").
const ZOD = {
  selector:
    "ImportDeclaration[source.value=/^zod/] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier)",
  message: "Import zod as a namespace, `import * as z from 'zod'`: it keeps zod's locales out of the serve bundle.",
}

const escape = (text) => text.replaceAll('.', '\\.')

/** The rules for files `up` folders below `src/` whose imports may reach only `allowed`. */
function boundary(folder, files, up, allowed) {
  const forbidden = FOLDERS.filter((other) => other !== folder && !allowed.includes(other))
  if (forbidden.length === 0) return []
  const prefix = up === 0 ? './' : '../'.repeat(up)
  const regex = `^${escape(prefix)}(${forbidden.join('|')})(/|\\.js$|$)`
  const message = `${folder === '.' ? 'src/' : `src/${folder}`} may import only ${
    allowed.length ? allowed.map((name) => `src/${name}`).join(', ') : 'no other src folder'
  } (ARCHITECTURE.md).`
  return [
    {
      files,
      rules: {
        'no-restricted-imports': ['error', {patterns: [{regex, message}, ...(folder === 'domain' ? [PURE] : [])]}],
        // `import()` of a module in a forbidden folder is the same arrow (esquery wants no bare `/`).
        'no-restricted-syntax': [
          'error',
          {selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\x2F')}/]`, message},
          ZOD,
        ],
      },
    },
  ]
}

// One block per folder and depth: `../` counted from the file's own place says
// which src folder an import lands in, so src/server/routes/x.ts → '../../client/'
// is caught and a nested folder that shares a layer's name is not.
const boundaries = [
  ...FOLDERS.flatMap((folder) =>
    [1, 2, 3, 4].flatMap((depth) =>
      boundary(folder, [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`], depth, LAYERS[folder]),
    ),
  ),
  ...boundary('.', ENTRIES.files, 0, ENTRIES.allowed),
]

export default tseslint.config(
  {ignores: ['dist/', 'node_modules/', 'test-output/']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {ecmaVersion: 2023, sourceType: 'module', globals: globals.node},
    rules: {
      // `_`-prefixed names are unused on purpose; `{$id, ...rest}` drops keys by naming them.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true},
      ],
      // `catch {}` says "a failure here changes nothing"; an empty block anywhere else is a slip.
      'no-empty': ['error', {allowEmptyCatch: true}],
      // `let handler` assigned after the closure that reads it is the point of that closure.
      'prefer-const': ['error', {ignoreReadBeforeAssign: true}],
    },
  },
  {
    // The binary is CommonJS (bin/package.json), for a start without the ES module loader.
    files: ['bin/run.js'],
    languageOptions: {sourceType: 'commonjs'},
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    // The pages run in the browser.
    files: ['src/web/public/**/*.js'],
    languageOptions: {globals: globals.browser},
  },
  {
    // Tests read JSON answers whose shape their assertions check.
    files: ['test/**/*.ts'],
    rules: {'@typescript-eslint/no-explicit-any': 'off'},
  },
  {
    // Type-aware only where it pays: a promise nobody awaits in src loses its error.
    files: ['src/**/*.ts'],
    languageOptions: {parserOptions: {projectService: true, tsconfigRootDir: import.meta.dirname}},
    rules: {'@typescript-eslint/no-floating-promises': 'error'},
  },
  ...boundaries,
)

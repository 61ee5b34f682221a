// The CommonJS build of the four entries (`require('tablepay')`, …/client, …/testing, …/msw), in dist/cjs/,
// which a package.json of `"type": "commonjs"` makes CommonJS for node and TypeScript alike:
// - the entries and the chunks they share, bundled from tsc's ES modules with esbuild (as dist/chunks/ for
//   serve), then each turned into CommonJS (a top-level await, which CommonJS has not, fails the build). Shared
//   chunks, not a bundle per entry: a `TablepayError` that `tablepay/testing`'s controls throw is the class
//   `tablepay/client` exports. Packages stay requires; each one the entries reach has a CommonJS build.
//   All files sit one under dist/, as dist/chunks/ do, so a module's `import.meta.url` (the bundle's own
//   URL here) finds dist/web/public/ and the package root;
// - their declarations, copied: tsc's, whose imports then read as CommonJS.
// ARCHITECTURE.md, "Two module formats".
import {cpSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {buildSync, transformSync} from 'esbuild'
import {declarationsReached} from './declarations.js'

const OUT = 'dist/cjs'
const ENTRIES = {index: 'index', client: 'client/index', testing: 'testing', msw: 'msw'}

const {outputFiles} = buildSync({
  entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, `dist/${path}.js`])),
  outdir: OUT,
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  write: false,
  logLevel: 'warning',
})
rmSync(OUT, {recursive: true, force: true})
mkdirSync(OUT, {recursive: true})
writeFileSync(join(OUT, 'package.json'), '{"type": "commonjs"}\n')
for (const {path, text} of outputFiles) {
  const {code} = transformSync(text, {
    format: 'cjs',
    target: 'node20',
    // jest runs CommonJS without the flag that `import()` needs there; a require loads the same
    supported: {'dynamic-import': false},
    define: {'import.meta.url': 'import_meta_url'},
    banner: text.includes('import.meta.url')
      ? "const import_meta_url = require('node:url').pathToFileURL(__filename).href"
      : '',
  })
  if (code.includes('import.meta')) throw new Error(`${path} reads import.meta otherwise than by its url`)
  writeFileSync(path, code)
}
const {files} = declarationsReached(
  'dist',
  Object.values(ENTRIES).map((path) => `${path}.d.ts`),
)
for (const file of files) {
  mkdirSync(dirname(join(OUT, file)), {recursive: true})
  cpSync(join('dist', file), join(OUT, file))
}

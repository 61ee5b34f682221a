// bin/run.js as it was before the lean path: oclif runs every command. The
// lean path's tests compare against it (argv must look the same to oclif,
// whose error help reads process.argv, hence a file and not `node -e`).
import {execute, settings} from '@oclif/core'

// as bin/run.js: never look for TypeScript sources
settings.enableAutoTranspile = false

// the package's root: bin/ holds a package.json of its own (it makes bin/run.js CommonJS)
await execute({dir: new URL('../..', import.meta.url).href})

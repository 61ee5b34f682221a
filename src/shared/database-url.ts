/**
 * A database URL as it may be shown: scheme, host, port and database, never
 * the user's password (nor any query parameter, which may hold one).
 *
 * @example
 * displayUrl('postgres://tablepay:s3cret@db.lab:5432/sandbox?sslmode=require') // 'postgres://db.lab:5432/sandbox'
 */
export function displayUrl(url: string): string {
  if (!URL.canParse(url)) return 'postgres://(unreadable URL)'
  const {protocol, host, pathname} = new URL(url)
  return `${protocol}//${host}${pathname}`
}

/**
 * Refuses what is not a PostgreSQL URL, with a message that never repeats the URL (it may hold a password);
 * `named`, when given, begins it (oclif names a flag itself).
 *
 * @example
 * checkDatabaseUrl(options.database, 'startSimulator: database')
 */
export function checkDatabaseUrl(url: string, named?: string): string {
  const refuse = (message: string) => new Error(named ? `${named}: ${message}` : message)
  if (!URL.canParse(url) || !/^postgres(ql)?:$/.test(new URL(url).protocol))
    throw refuse('give a postgres:// URL, e.g. postgres://user:password@host:5432/tablepay')
  const mode = new URL(url).searchParams.get('sslmode')
  // node-postgres would check the certificate of any mode it does not know, `allow` among them
  if (mode !== null && !SSL_MODES.includes(mode))
    throw refuse(`sslmode=${mode} is not taken: give one of ${SSL_MODES.join(', ')} (docs/postgres.md, "Flags")`)
  return url
}

/** The `sslmode`s tablepay takes: libpq's but `allow`, which tries without SSL first, and node-postgres's `no-verify`. */
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify']

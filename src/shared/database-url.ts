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
  if (!URL.canParse(url) || !/^postgres(ql)?:$/.test(new URL(url).protocol)) {
    const message = 'give a postgres:// URL, e.g. postgres://user:password@host:5432/tablepay'
    throw new Error(named ? `${named}: ${message}` : message)
  }
  return url
}

import {accessSync, constants} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

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
  const params = new URL(url).searchParams
  const mode = params.get('sslmode')
  // node-postgres would check the certificate of any mode it does not know, `allow` among them
  if (mode !== null && !SSL_MODES.includes(mode))
    throw refuse(`sslmode=${mode} is not taken: give one of ${SSL_MODES.join(', ')} (docs/postgres.md, "Flags")`)
  // node-postgres reads them at each connection, and a missing one would end the start with Node's bare ENOENT
  for (const [name, what] of Object.entries(SSL_FILES)) {
    const file = params.get(name)
    if (file !== null && !readable(file))
      throw refuse(`${name}=${file} cannot be read: give the path of ${what} (PEM), or drop ${name}`)
  }
  const root = defaultRootCert(params)
  if (root !== undefined && !readable(root))
    throw refuse(
      `sslmode=verify-ca with no sslrootcert checks the server's certificate against ${root}, as libpq does, ` +
        `which cannot be read: name the CA's certificate in the URL (sslrootcert=/path/ca.pem), or put it there`,
    )
  return url
}

/** The files a URL may name for SSL, and what each holds. */
const SSL_FILES = {
  sslrootcert: "the CA's certificate that signed the server's",
  sslcert: "the client's certificate",
  sslkey: "the client certificate's key",
}

const readable = (file: string) => {
  try {
    accessSync(file, constants.R_OK)
    return true
  } catch {
    return false
  }
}

/** Where libpq reads the CA's certificate from for `verify-ca` when the URL names none (`sslrootcert`). */
export const defaultRootCert = (params: URLSearchParams): string | undefined =>
  params.get('sslmode') === 'verify-ca' && !params.has('sslrootcert')
    ? join(homedir(), '.postgresql', 'root.crt')
    : undefined

/** The `sslmode`s tablepay takes: libpq's but `allow`, which tries without SSL first, and node-postgres's `no-verify`. */
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify']

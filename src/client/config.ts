import {readFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import type {ClientOptions} from './client.js'
import {TablepayConfigError} from './errors.js'

export const DEFAULT_URL = 'http://127.0.0.1:4747'

/** The file `tablepay serve` writes into its data dir on start, so clients started there need no flags. */
export const SERVER_FILE = 'server.json'

/** What that file holds. */
export interface ServerFile {
  url: string
  pid: number
  /** A write key of the first account. */
  api_key: string
  read_key?: string
}

/** The data dir clients look in: `TABLEPAY_DATA`, else `./.tablepay`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.TABLEPAY_DATA || '.tablepay')
}

/**
 * Where the client connects and with which key: flags first, then
 * `TABLEPAY_URL`/`TABLEPAY_API_KEY`, then the `server.json` of a server
 * started in this directory, then the default URL.
 *
 * @example
 * const client = new TablepayClient(resolveClientConfig({url: flags.url, apiKey: flags['api-key']}))
 */
export function resolveClientConfig(flags: Partial<ClientOptions> = {}, env: NodeJS.ProcessEnv = process.env): ClientOptions {
  let url = flags.url || env.TABLEPAY_URL
  let apiKey = flags.apiKey || env.TABLEPAY_API_KEY
  // The file is read only when needed: a stale or broken one must not get in the way of explicit settings.
  if (!url || !apiKey) {
    const server = readServerFile(dataDir(env))
    url ||= server?.url
    apiKey ||= server?.api_key
  }
  if (!apiKey) {
    throw new TablepayConfigError(
      'missing_api_key',
      'No API key: pass --api-key, set TABLEPAY_API_KEY, or start `tablepay serve` in this directory.',
    )
  }
  return {url: url || DEFAULT_URL, apiKey}
}

// Synchronous on purpose: a small file, read once, and it keeps `this.client` a plain getter.
function readServerFile(dir: string): ServerFile | undefined {
  const path = join(dir, SERVER_FILE)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    return JSON.parse(text) as ServerFile
  } catch {
    throw new TablepayConfigError('invalid_server_file', `${path} is not valid JSON: delete it, or pass --url and --api-key.`)
  }
}

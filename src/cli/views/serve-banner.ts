import {firstKeys, type SeededAccount} from '../../domain/seeded-account.js'
import {style} from './style.js'
import {displayWidth, padTo} from './display-width.js'
import {printable} from './printable.js'

/** What the banner shows of a running server: plain data, which `serve` passes from the server it started. */
export interface ServerSummary {
  /** Without trailing slash and without /v1. */
  url: string
  dataDir?: string
  /** The PostgreSQL database the records live in (`--database`), without its password. */
  database?: string
  accounts: SeededAccount[]
  /** `--public-url`: what guest links are made from. */
  publicUrl?: string
  /** The snapshots of `--import`, restored into their accounts. */
  imported?: {name: string; account: string}[]
}

/** Where the records live, as the banner says it. */
function storeLine(server: ServerSummary): string {
  if (server.database) return `${server.database} (PostgreSQL, shared by every instance on it)`
  return server.dataDir ?? 'in memory (gone when the server stops)'
}

/**
 * The dashboard's link, with the first account's read key in the fragment
 * (`#key=…`), which browsers never send to a server. A write key never goes
 * in a link: without a read key the dashboard asks for one.
 *
 * @example
 * dashboardUrl(server) // 'http://127.0.0.1:4747/#key=tp_test_demo_read'
 */
export function dashboardUrl(server: ServerSummary): string {
  const {read} = firstKeys(server.accounts)
  return read ? `${server.url}/#key=${read}` : `${server.url}/`
}

/** The one line `serve --json` prints when it accepts requests: CI waits for it and takes the URL and keys from it. */
export function readyJson(server: ServerSummary) {
  return {
    status: 'ready',
    url: `${server.url}/v1`,
    dashboard_url: dashboardUrl(server),
    data_dir: server.dataDir ?? null,
    database: server.database ?? null,
    accounts: server.accounts,
  }
}

function keyLabel(key: SeededAccount['api_keys'][number]): string {
  return key.scopes.includes('write') ? 'write key' : 'read key'
}

function renderAccount(account: SeededAccount): string {
  // the names in one column, whatever the ids' lengths
  const idWidth = Math.max(0, ...account.locations.map((l) => displayWidth(printable(l.id))))
  const rows = [
    ...account.locations.map((l) => ['location', `${padTo(printable(l.id), idWidth)}  ${l.name}`]),
    ...account.api_keys.map((k) => [keyLabel(k), k.key]),
  ]
  // the names come from a seed file, which is data too
  return [
    `${style.bold(printable(account.name))}  ${style.dim(printable(account.id))}`,
    ...rows.map(([label, value]) => `  ${label!.padEnd(10)} ${printable(value!)}`),
  ].join('\n')
}

/** What a person needs to start calling the API: where it is, where data goes, the keys, and a request to copy. */
export function renderBanner(server: ServerSummary): string {
  const api = `${server.url}/v1`
  const keys = firstKeys(server.accounts)
  return [
    `${style.green('tablepay')} is listening on ${style.bold(api)}`,
    `Dashboard: ${style.underline(dashboardUrl(server))}`,
    `Data: ${storeLine(server)}`,
    // what the flags changed that the lines above do not show: a start says it did what it was asked
    ...(server.publicUrl ? [`Guest links: ${server.publicUrl}/t/… (--public-url)`] : []),
    ...(server.imported ?? []).map(
      ({name, account}) => `Restored: snapshot ${printable(name)} into ${printable(account)}`,
    ),
    '',
    ...server.accounts.map((account) => `${renderAccount(account)}\n`),
    'Try it:',
    `  curl -H "Authorization: Bearer ${keys.write ?? keys.read ?? '<API_KEY>'}" ${api}/locations`,
    '',
    style.dim('Press Ctrl+C to stop.'),
  ].join('\n')
}

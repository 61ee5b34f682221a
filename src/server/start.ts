// Contract placeholder: implemented next. See RunningServer below.
export interface ServeOptions {
  port: number
  host: string
  /** Data dir; undefined means --memory. */
  dataDir?: string
  seedFile?: string
  fsync?: boolean
}

export interface SeededAccount {
  id: string
  name: string
  locations: {id: string; name: string}[]
  api_keys: {key: string; scopes: ('read' | 'write')[]}[]
}

export interface RunningServer {
  /** Base URL without trailing slash and without /v1, e.g. http://127.0.0.1:4747 */
  url: string
  dataDir?: string
  /** Every account with its keys and locations, for the banner. */
  accounts: SeededAccount[]
  /** True when this start created accounts (first start, or --seed added some). */
  seeded: boolean
  close(): Promise<void>
}

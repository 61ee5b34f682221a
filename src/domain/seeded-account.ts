/**
 * A seeded account with its locations and keys, as `serve` prints it and
 * `tablepay/testing` and `tablepay/msw` hand it out. It lives apart from the
 * server so that their published types name nothing of the server's (a
 * user's type check would otherwise need h3's types).
 */
export interface SeededAccount {
  id: string
  name: string
  locations: {id: string; name: string}[]
  api_keys: {key: string; scopes: ('read' | 'write')[]}[]
}

/**
 * The keys a server hands out for its first account: its first key with the
 * write scope, and its first read-only one (`server.json`, the dashboard's
 * link, `exec`'s environment, `tablepay/testing`).
 *
 * @example
 * const {write, read} = firstKeys(server.accounts) // {write: 'tp_test_demo_write', read: 'tp_test_demo_read'}
 */
export function firstKeys(accounts: readonly SeededAccount[]): {write?: string; read?: string} {
  const keys = accounts[0]?.api_keys ?? []
  return {
    write: keys.find((k) => k.scopes.includes('write'))?.key,
    read: keys.find((k) => !k.scopes.includes('write'))?.key,
  }
}

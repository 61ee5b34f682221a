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

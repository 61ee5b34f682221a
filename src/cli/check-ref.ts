import type {Check, TablepayClient} from '../client/client.js'

/** How users name a check on the command line: its `chk_…` id, or else the POS id it was pushed under. */
const isCheckId = (ref: string) => ref.startsWith('chk_')

/**
 * The check `ref` names; `external` reads it as a POS id whatever it looks like.
 *
 * @example
 * await fetchCheck(client, 't12') // the check pushed as t12
 */
export function fetchCheck(client: TablepayClient, ref: string, external = false): Promise<Check> {
  return external || !isCheckId(ref) ? client.getCheckByExternalId(ref) : client.getCheck(ref)
}

/**
 * The check id behind `--check`: a `chk_…` id as is (no request), anything
 * else looked up as the POS id.
 *
 * @example
 * await checkIdOf(client, 't12') // 'chk_4f0b6k2m9q1x8s7d3a5z'
 */
export async function checkIdOf(client: TablepayClient, ref: string): Promise<string> {
  return isCheckId(ref) ? ref : (await client.getCheckByExternalId(ref)).id
}

import {createHash} from 'node:crypto'
import {endpointKey, knownSecretEndpoint} from '../domain/endpoints.js'
import {ApiError} from '../domain/errors.js'
import {randomToken} from '../domain/ids.js'
import type {Collections, WebhookEndpointRecord} from '../domain/records.js'
import {Seed} from '../domain/seed-schema.js'
import {UnusableInputError} from '../shared/unusable-input.js'
import type {Change} from './store.js'
import {READABLE} from '../domain/parse-messages.js'

/** What the seed reads of what exists: a record by collection and id, and how many endpoints an account has. */
interface Lookup {
  get<C extends 'accounts' | 'locations' | 'api_keys' | 'webhook_endpoints'>(
    collection: C,
    id: string,
  ): Promise<Collections[C] | undefined>
  endpointsOf(accountId: string): Promise<number>
}

/**
 * What a fresh data dir starts with: one restaurant, two rooms, a write key
 * and a read key. Ids are fixed so docs and scripts can name them; the keys
 * are random, as real keys are.
 */
export function defaultSeed(): Seed {
  return {
    accounts: [
      {
        id: 'acct_demo',
        name: 'Demo Bistro',
        locations: [
          {id: 'loc_main', name: 'Main Room', timezone: 'Europe/Paris', currency: 'EUR'},
          {id: 'loc_terrace', name: 'Terrace', timezone: 'Europe/Paris', currency: 'EUR'},
        ],
        api_keys: [
          {key: `tp_test_${randomToken(24)}`, scopes: ['read', 'write']},
          {key: `tp_test_${randomToken(24)}`, scopes: ['read']},
        ],
      },
    ],
  }
}

/** What to do with a seed file that is not one. */
export const SEED_HINT = 'See fixtures/seed.json, the example the package ships.'

/** Checks a seed given as a value; the error names `source` and the first problem. */
export function parseSeed(value: unknown, source: string): Seed {
  const result = Seed.safeParse(value, READABLE)
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw new UnusableInputError(
      `seed: ${source} is not a valid seed: ${issue.path.join('.') || '(root)'}: ${issue.message}. ${SEED_HINT}`,
    )
  }
  return result.data
}

/** Seeding never moves a location or a key from the account that has it in the data dir to another. */
function assertOwner(what: string, id: string, owner: string, seeded: string): void {
  if (owner === seeded) return
  throw new UnusableInputError(
    `seed: ${what} ${id} belongs to ${owner} in this data dir, not ${seeded}; fix the seed file, or start with another --data directory.`,
  )
}

/**
 * The changes that add what the seed has and the store lacks. Nothing that
 * exists is changed, so seeding an existing data dir again is harmless. An
 * account that would have more than `mostEndpoints` webhook endpoints, those
 * it has and those added, is refused, as the API refuses the next one.
 */
export async function seedChanges(
  lookup: Lookup,
  seed: Seed,
  now: string,
  {mostEndpoints, strictUrls}: {mostEndpoints: number; strictUrls: boolean},
): Promise<Change[]> {
  const {get} = lookup
  const changes: Change[] = []
  for (const account of seed.accounts) {
    if (!(await get('accounts', account.id))) {
      changes.push([
        'accounts',
        account.id,
        {id: account.id, account_id: account.id, name: account.name, created_at: now},
      ])
    }
    for (const location of account.locations) {
      const existing = await get('locations', location.id)
      if (existing) {
        assertOwner('location', location.id, existing.account_id, account.id)
        continue
      }
      changes.push([
        'locations',
        location.id,
        {...location, object: 'location', created_at: now, account_id: account.id},
      ])
    }
    for (const {key, scopes} of account.api_keys) {
      const existing = await get('api_keys', key)
      if (existing) {
        assertOwner('key', key, existing.account_id, account.id)
        continue
      }
      changes.push(['api_keys', key, {key, scopes, account_id: account.id, created_at: now}])
    }
    const added = new Map<string, Change>()
    for (const input of account.webhook_endpoints ?? []) {
      const id = input.id ?? seededEndpointId(account.id, input.url, input.secret)
      const endpoint = seededEndpoint(account.id, {...input, id}, now, strictUrls)
      // its id is the account's own: another account's endpoint of the same id is no conflict (docs/api.md);
      // a data dir of an earlier version keeps a seeded endpoint under its id alone
      const earlier = await get('webhook_endpoints', id)
      if (earlier?.account_id === account.id || (await get('webhook_endpoints', endpointKey(endpoint)))) continue
      added.set(endpointKey(endpoint), ['webhook_endpoints', endpointKey(endpoint), endpoint])
    }
    if (added.size > 0) await refuseEndpointsPast(mostEndpoints, account.id, added.size, lookup)
    changes.push(...added.values())
  }
  return changes
}

/** A seeded endpoint, made as the API makes one (`--strict-urls` too); a URL it refuses refuses the seed. */
function seededEndpoint(
  accountId: string,
  input: Parameters<typeof knownSecretEndpoint>[1],
  now: string,
  strictUrls: boolean,
): WebhookEndpointRecord {
  try {
    return knownSecretEndpoint(accountId, input, now, strictUrls)
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    throw new UnusableInputError(
      `seed: account ${accountId}'s webhook endpoint ${input.url}: ${error.details?.[0]?.message ?? error.message}. ${SEED_HINT}`,
    )
  }
}

/** Refuses a seed that adds `adding` endpoints to an account past `most`, counting those it has. */
async function refuseEndpointsPast(most: number, accountId: string, adding: number, lookup: Lookup): Promise<void> {
  const total = adding + (await lookup.endpointsOf(accountId))
  if (total <= most) return
  throw new UnusableInputError(
    `seed: account ${accountId} would have ${total} webhook endpoints, more than the ${most} an account may have; list fewer in the seed, or start without it and delete some (tablepay webhooks delete ID).`,
  )
}

/**
 * The id of a seeded endpoint listed without one: the same for the same account, URL and secret,
 * so that seeding a data dir again adds no second endpoint.
 */
function seededEndpointId(accountId: string, url: string, secret: string): string {
  return `we_${createHash('sha256').update(`${accountId}\n${url}\n${secret}`).digest('hex').slice(0, 20)}`
}

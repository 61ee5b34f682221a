import {newId, randomToken} from './ids.js'
import {renderLocation} from './locations.js'
import type {AccountRecord, ApiKeyRecord, LocationRecord} from './records.js'
import type {ScratchAccount} from './schemas.js'

export interface ScratchAccountRecords {
  account: AccountRecord
  /** The copies, each with the id of the location it copies. */
  locations: {record: LocationRecord; copy_of: string}[]
  key: ApiKeyRecord
}

/**
 * A new, empty account with copies of `parent`'s locations (under new ids:
 * location ids are global) and one read+write key, so a tool can run
 * something in isolation and compare (`checks replay`). Its key counts
 * against the rate limit of `limitedAs`, the account at the top of its line.
 *
 * @example
 * const {account, locations, key} = scratchAccount(parent, parentLocations, now, 'acct_demo')
 */
export function scratchAccount(
  parent: AccountRecord,
  parentLocations: readonly LocationRecord[],
  now: string,
  limitedAs: string,
): ScratchAccountRecords {
  const id = newId('acct')
  return {
    account: {id, account_id: id, name: `Scratch copy of ${parent.name}`, created_at: now, scratch_of: parent.id},
    locations: parentLocations.map((location) => ({
      record: {...location, id: newId('loc'), created_at: now, account_id: id},
      copy_of: location.id,
    })),
    key: {
      key: `tp_test_${randomToken(24)}`,
      account_id: id,
      scopes: ['read', 'write'],
      created_at: now,
      limited_as: limitedAs,
    },
  }
}

/** The answer of `POST /sim/accounts`: the account, its location copies with what each copies, and its key. */
export function renderScratchAccount({account, locations, key}: ScratchAccountRecords): ScratchAccount {
  return {
    id: account.id,
    object: 'account',
    name: account.name,
    scratch_of: account.scratch_of!,
    created_at: account.created_at,
    locations: locations.map(({record, copy_of}) => ({...renderLocation(record), copy_of})),
    api_keys: [{key: key.key, scopes: key.scopes}],
  }
}

import * as z from 'zod'
import {Currency, IdOf, KnownSecretEndpointInput, SCOPES, TimeZone} from './schemas.js'

/** An account's id, as a seed names it and the server makes it; a snapshot's document names its account so. */
export const AccountId = IdOf('acct')

/** The seed file of `serve --seed`: accounts with their locations and keys. */
export const Seed = z.strictObject({
  accounts: z
    .array(
      z.strictObject({
        id: AccountId,
        name: z.string().min(1).max(200),
        locations: z
          .array(
            z.strictObject({
              id: IdOf('loc'),
              name: z.string().min(1).max(200),
              timezone: TimeZone,
              currency: Currency,
            }),
          )
          .min(1),
        api_keys: z
          .array(
            z.strictObject({
              key: z.string().regex(/^tp_test_[A-Za-z0-9_]{4,100}$/),
              scopes: z.array(z.enum(SCOPES)).min(1),
            }),
          )
          .min(1),
        webhook_endpoints: z.array(KnownSecretEndpointInput).optional(),
      }),
    )
    .min(1)
    .superRefine((accounts, ctx) => {
      // an id listed twice would silently change owner: the later account would take it
      const seen = new Map<string, string>()
      const claim = (id: string, path: (string | number)[], within = '') => {
        const first = seen.get(within + id)
        if (first)
          ctx.addIssue({
            code: 'custom',
            path,
            message: `"${id}" is already listed at ${first}; each account, location and key appears once`,
          })
        else seen.set(within + id, ['accounts', ...path].join('.'))
      }
      accounts.forEach((account, a) => {
        claim(account.id, [a, 'id'])
        account.locations.forEach((location, l) => claim(location.id, [a, 'locations', l, 'id']))
        account.api_keys.forEach(({key}, k) => claim(key, [a, 'api_keys', k, 'key']))
        // an endpoint's id is its account's own: two accounts may both choose one
        account.webhook_endpoints?.forEach(
          ({id}, w) => id && claim(id, [a, 'webhook_endpoints', w, 'id'], `${account.id}/`),
        )
      })
    }),
})
export type Seed = z.infer<typeof Seed>

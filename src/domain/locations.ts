import type {LocationRecord} from './records.js'
import type {Location} from './schemas.js'

/** The public location resource of a record. */
export const renderLocation = (l: LocationRecord): Location => ({
  id: l.id,
  object: l.object,
  name: l.name,
  timezone: l.timezone,
  currency: l.currency,
  created_at: l.created_at,
})

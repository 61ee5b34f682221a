import * as z from 'zod'
import {CheckPush, ExternalCheckId} from '../../domain/schemas.js'

/**
 * A `checks replay` scenario: the pushes a POS made, in the order it made
 * them, for one or more checks. Each body is exactly what the POS sends to
 * `PUT /checks/external/{external_id}`.
 */
export const Scenario = z.strictObject({
  description: z.string().max(500).optional(),
  pushes: z
    .array(z.strictObject({external_id: ExternalCheckId, body: CheckPush}))
    .min(1)
    .max(1000),
})
export type Scenario = z.infer<typeof Scenario>

/** A scenario is told apart from a push body by its `pushes` list, which a push body never has. */
export const looksLikeScenario = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && 'pushes' in value

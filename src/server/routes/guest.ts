import {
  defineEventHandler,
  getRequestHeader,
  type H3Event,
  type Router,
  sendRedirect,
  setResponseHeader,
  setResponseStatus,
} from 'h3'
import {guestUrl, renderCheck} from '../../domain/check.js'
import {ApiError} from '../../domain/errors.js'
import {renderLocation} from '../../domain/locations.js'
import {renderPayment} from '../../domain/payments.js'
import type {CheckRecord, PaymentRecord} from '../../domain/records.js'
import {isRestore} from '../../domain/snapshots.js'
import {sendAsset} from '../../web/assets.js'
import {qrSvg} from '../../web/qr.js'
import type {AppContext} from '../context.js'
import {claim, leaveFeedback, pay, refund} from '../guest-actions.js'
import type {StreamMessageOut} from '../internal/event-stream.js'
import {pathOf} from '../internal/request-path.js'

/**
 * The check a guest link opens. The token in the path is the guest's only
 * credential: it opens this one check, nothing else, and no /v1 route.
 */
async function checkOfLink({service}: AppContext, event: H3Event): Promise<CheckRecord> {
  const check = await service.records.checkByGuestToken(event.context.params?.token ?? '')
  if (!check)
    throw new ApiError(
      'not_found',
      "No check behind this table link: it is mistyped, or the check was removed. Scan the table's QR code again.",
    )
  // the link is the credential: idempotency keys sent with it live apart from the API key's
  event.context.guestCheckId = check.id
  return check
}

/** A payment of the check a guest link opens: another check's payment does not exist there. */
async function paymentOfLink(app: AppContext, event: H3Event): Promise<PaymentRecord> {
  const check = await checkOfLink(app, event)
  const id = event.context.params?.id ?? ''
  const payment = await app.service.records.get('payments', id)
  if (!payment || payment.check_id !== check.id) throw new ApiError('not_found', `No payment ${id} on this check.`)
  return payment
}

/** Whether the request comes from a browser loading a page, rather than from a program. */
const acceptsHtml = (event: H3Event) => /\btext\/html\b/.test(getRequestHeader(event, 'accept') ?? '')

/** The table page behind each QR code (`/t/{guest_token}`) and the guest's own small API under it. */
export function guestRoutes(router: Router, app: AppContext): void {
  const {service, baseUrl} = app
  const checkMessage = (check: CheckRecord): StreamMessageOut => ({event: 'check', data: renderCheck(check, baseUrl)})

  router.get(
    '/t/:token',
    defineEventHandler(async (event) => {
      // the page loads its files from `../assets/`, which works under any path a proxy puts it (serve --public-url)
      // but one with a trailing slash: that one is sent to the page's own URL, relative as well
      if (pathOf(event).endsWith('/')) {
        const url = event.node.req.url ?? ''
        const query = url.includes('?') ? url.slice(url.indexOf('?')) : ''
        return sendRedirect(event, `../${encodeURIComponent(event.context.params?.token ?? '')}${query}`, 308)
      }
      try {
        await checkOfLink(app, event)
      } catch (error) {
        // a guest who scanned an old code gets a page that says what to do; API clients still get the error body
        if (!acceptsHtml(event)) throw error
        setResponseStatus(event, 404)
        return sendAsset(event, 'missing.html')
      }
      return sendAsset(event, 'guest.html')
    }),
  )

  router.get(
    '/t/:token/location',
    defineEventHandler(async (event) => {
      // the page shows amounts in the location's currency
      const location = await service.records.get('locations', (await checkOfLink(app, event)).location_id)
      if (!location) throw new ApiError('not_found', 'No location behind this table link.')
      return renderLocation(location)
    }),
  )

  router.get(
    '/t/:token/check',
    defineEventHandler(async (event) => {
      setResponseHeader(event, 'cache-control', 'no-store')
      return renderCheck(await checkOfLink(app, event), baseUrl)
    }),
  )

  router.get(
    '/t/:token/stream',
    defineEventHandler(async (event) => {
      const {id} = await checkOfLink(app, event)
      // one topic per check: a change is rendered once, whatever the number of guests following it
      return app.streams.open(event, {
        key: `check:${id}`,
        noun: 'this table',
        limit: app.streams.limits.perCheck,
        snapshot: async () => {
          const check = await service.records.get('checks', id)
          return [check ? checkMessage(check) : {event: 'gone', data: {id}}]
        },
        // after `gone` there is nothing more to follow: the stream ends, and its place frees (docs/pages.md)
        alive: async () => (await service.records.get('checks', id)) !== undefined,
        // its last change in the commit says: a restore deletes the check and may put it back
        ends: (changes) =>
          changes.findLast(([collection, changed]) => collection === 'checks' && changed === id)?.[2] === null,
        select: (changes) => {
          const messages: StreamMessageOut[] = []
          for (const [collection, changed, record] of changes) {
            if (collection !== 'checks' || changed !== id) continue
            messages.push(record ? checkMessage(record) : {event: 'gone', data: {id}})
          }
          // a restore deletes the check and puts back the saved one, if any: `reset`, then the check as restored
          if (messages.length > 0 && isRestore(changes)) return [{event: 'reset', data: {id}}, messages.at(-1)!]
          return messages
        },
      })
    }),
  )

  router.get(
    '/t/:token/qr.svg',
    defineEventHandler(async (event) => {
      const check = await checkOfLink(app, event)
      setResponseHeader(event, 'content-type', 'image/svg+xml')
      return qrSvg(guestUrl(baseUrl, check.guest_token))
    }),
  )
  router.post(
    '/t/:token/claims',
    defineEventHandler(async (event) => claim(app, event, await checkOfLink(app, event))),
  )

  router.post(
    '/t/:token/payments',
    defineEventHandler(async (event) => pay(app, event, await checkOfLink(app, event))),
  )

  // the page's list of this tab's payments, kept as they are: a refund may come from elsewhere
  router.get(
    '/t/:token/payments/:id',
    defineEventHandler(async (event) => {
      setResponseHeader(event, 'cache-control', 'no-store')
      return renderPayment(await paymentOfLink(app, event))
    }),
  )

  router.post(
    '/t/:token/payments/:id/refund',
    defineEventHandler(async (event) => refund(app, event, await paymentOfLink(app, event))),
  )

  router.post(
    '/t/:token/feedback',
    defineEventHandler(async (event) => leaveFeedback(app, event, await checkOfLink(app, event))),
  )
}

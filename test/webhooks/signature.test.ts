import {readFileSync} from 'node:fs'
import Stripe from 'stripe'
import {describe, expect, it} from 'vitest'
import {
  assertValidSignature,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  SignatureVerificationError,
  signPayload,
  verifySignature,
} from '../../src/index.js'

const SECRET = 'whsec_test_5f2b9c0e8a7d4b1c'
const NOW = 1_700_000_000
// The raw bytes of a real-looking body, with its own line breaks and indentation.
const RAW = readFileSync(new URL('../../fixtures/checks/open.json', import.meta.url))
const BODY = RAW.toString('utf8')

/** A header Stripe's own test helper made: an implementation that shares no code with ours. */
function stripeHeader(payload: string, timestamp = NOW, secret = SECRET): string {
  return Stripe.webhooks.generateTestHeaderString({payload, secret, timestamp})
}

function reasonOf(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    if (error instanceof SignatureVerificationError) return error.reason
    throw error
  }
  return undefined
}

describe('signPayload', () => {
  it('gives t=<unix>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>"> keyed with the whole whsec_ secret', () => {
    // computed with: printf '%s' '1700000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac whsec_test_secret
    expect(signPayload('{"id":"evt_1"}', 'whsec_test_secret', NOW)).toBe(
      't=1700000000,v1=248a374f50f943a28b0f6ab50faf9a7e7e29b710fa26df9fb1618b9bf8ea9c9a',
    )
  })

  it("makes headers that Stripe's constructEvent accepts", () => {
    const event = Stripe.webhooks.constructEvent(
      BODY,
      signPayload(BODY, SECRET, NOW),
      SECRET,
      300,
      undefined,
      NOW * 1000,
    )
    expect(event).toEqual(JSON.parse(BODY))
  })

  it('signs with the current time by default', () => {
    const before = Math.floor(Date.now() / 1000)
    const {timestamp} = parseSignatureHeader(signPayload(BODY, SECRET))
    expect(timestamp).toBeGreaterThanOrEqual(before)
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
  })

  it('signs a Buffer as its bytes, the same as the string they encode', () => {
    expect(signPayload(RAW, SECRET, NOW)).toBe(signPayload(BODY, SECRET, NOW))
    // bytes that are not UTF-8 must not be decoded (to U+FFFD) before hashing
    const notUtf8 = Buffer.from([0x7b, 0xff, 0xfe, 0x7d])
    expect(signPayload(notUtf8, SECRET, NOW)).not.toBe(signPayload(notUtf8.toString('utf8'), SECRET, NOW))
    expect(verifySignature(notUtf8, signPayload(notUtf8, SECRET, NOW), SECRET, {now: NOW}).valid).toBe(true)
  })

  it('refuses an empty secret, a parsed body and a timestamp that is not whole seconds', () => {
    expect(() => signPayload(BODY, '', NOW)).toThrow(TypeError)
    expect(() => signPayload(JSON.parse(BODY), SECRET, NOW)).toThrow(/raw request body/)
    expect(() => signPayload(BODY, SECRET, 1.5)).toThrow(RangeError)
  })
})

describe('parseSignatureHeader', () => {
  it('keeps every v1 signature in order and ignores other schemes', () => {
    expect(parseSignatureHeader('t=1700000000,v0=zz,v1=aa,v2=yy,v1=bb')).toEqual({
      timestamp: NOW,
      signatures: ['aa', 'bb'],
    })
  })

  it('gives no signatures for a header without v1', () => {
    expect(parseSignatureHeader('t=1700000000,v0=aa')).toEqual({timestamp: NOW, signatures: []})
  })

  it.each([
    ['not key=value', 'garbage'],
    ['no timestamp', 'v1=aa'],
    ['a timestamp that is not a number', 't=soon,v1=aa'],
    ['a negative timestamp', 't=-5,v1=aa'],
    ['a fractional timestamp', 't=1700000000.5,v1=aa'],
    ['two timestamps', 't=1700000000,t=1700000001,v1=aa'],
    ['an empty entry', 't=1700000000,,v1=aa'],
    ['the header name pasted in', `${SIGNATURE_HEADER}: t=1700000000,v1=aa`],
  ])('throws malformed_header for %s', (_, header) => {
    expect(reasonOf(() => parseSignatureHeader(header))).toBe('malformed_header')
  })
})

describe('verifySignature', () => {
  it("accepts a header made by Stripe's generateTestHeaderString", () => {
    expect(verifySignature(BODY, stripeHeader(BODY), SECRET, {now: NOW})).toEqual({valid: true, timestamp: NOW})
  })

  it('accepts a string and a Buffer of the same bytes', () => {
    const header = signPayload(BODY, SECRET, NOW)
    expect(verifySignature(BODY, header, SECRET, {now: NOW}).valid).toBe(true)
    expect(verifySignature(RAW, header, SECRET, {now: NOW}).valid).toBe(true)
  })

  it.each([
    ['a tampered body', BODY.replace('1400', '1300'), stripeHeader(BODY), SECRET, 'signature_mismatch'],
    [
      'a re-serialized body (the raw-body pitfall)',
      JSON.stringify(JSON.parse(BODY)),
      stripeHeader(BODY),
      SECRET,
      'signature_mismatch',
    ],
    ['a body with a newline added', `${BODY}\n`, stripeHeader(BODY), SECRET, 'signature_mismatch'],
    ['the wrong secret', BODY, stripeHeader(BODY, NOW, 'whsec_someone_else'), SECRET, 'signature_mismatch'],
    [
      'an upper-case signature',
      BODY,
      stripeHeader(BODY).toUpperCase().replace('T=', 't=').replace('V1=', 'v1='),
      SECRET,
      'signature_mismatch',
    ],
    ['a missing header', BODY, undefined, SECRET, 'no_signature'],
    ['an empty header', BODY, '', SECRET, 'no_signature'],
    ['a header without v1', BODY, `t=${NOW},v0=abc`, SECRET, 'no_signature'],
    ['a malformed header', BODY, 'v1=abc', SECRET, 'malformed_header'],
    ['a signature 301 s old', BODY, stripeHeader(BODY, NOW - 301), SECRET, 'timestamp_outside_tolerance'],
    ['a signature 301 s in the future', BODY, stripeHeader(BODY, NOW + 301), SECRET, 'timestamp_outside_tolerance'],
  ])('refuses %s', (_, payload, header, secret, reason) => {
    const result = verifySignature(payload, header, secret, {now: NOW})
    expect(result).toEqual({valid: false, reason, message: expect.any(String)})
  })

  it("takes the header as fetch's Request hands it over: null when it is missing is no_signature", async () => {
    const request = (headers: Record<string, string>) =>
      new Request('http://127.0.0.1:3000/webhooks', {method: 'POST', body: RAW, headers})
    const signed = request({[SIGNATURE_HEADER]: stripeHeader(BODY)})
    const verify = async (received: Request) =>
      verifySignature(await received.text(), received.headers.get('x-tablepay-signature'), SECRET, {now: NOW})
    expect(await verify(signed)).toEqual({valid: true, timestamp: NOW})
    expect(await verify(request({}))).toMatchObject({valid: false, reason: 'no_signature'})
  })

  it('accepts a signature exactly 300 s old or 300 s ahead', () => {
    expect(verifySignature(BODY, stripeHeader(BODY, NOW - 300), SECRET, {now: NOW}).valid).toBe(true)
    expect(verifySignature(BODY, stripeHeader(BODY, NOW + 300), SECRET, {now: NOW}).valid).toBe(true)
  })

  it('applies the tolerance given, and Infinity skips the check', () => {
    const header = stripeHeader(BODY, NOW - 61)
    expect(verifySignature(BODY, header, SECRET, {now: NOW, tolerance: 60})).toMatchObject({
      reason: 'timestamp_outside_tolerance',
    })
    expect(verifySignature(BODY, header, SECRET, {now: NOW, tolerance: 61}).valid).toBe(true)
    expect(verifySignature(BODY, stripeHeader(BODY, 1), SECRET, {now: NOW, tolerance: Infinity}).valid).toBe(true)
  })

  it('says how far off the timestamp is, and in which direction', () => {
    expect(verifySignature(BODY, stripeHeader(BODY, NOW - 301), SECRET, {now: NOW})).toMatchObject({
      message: expect.stringContaining('301 s old'),
    })
    expect(verifySignature(BODY, stripeHeader(BODY, NOW + 301), SECRET, {now: NOW})).toMatchObject({
      message: expect.stringContaining('301 s in the future'),
    })
  })

  it('reports a forged old signature as a mismatch, not as old', () => {
    expect(verifySignature(BODY, stripeHeader(BODY, NOW - 301, 'whsec_other'), SECRET, {now: NOW})).toMatchObject({
      reason: 'signature_mismatch',
    })
  })

  it('accepts a header with several v1 signatures when one matches, whatever their lengths', () => {
    const good = parseSignatureHeader(signPayload(BODY, SECRET, NOW)).signatures[0]
    const bad = parseSignatureHeader(signPayload(BODY, 'whsec_old_secret', NOW)).signatures[0]
    expect(verifySignature(BODY, `t=${NOW},v1=${bad},v1=short,v1=${good}`, SECRET, {now: NOW}).valid).toBe(true)
    expect(verifySignature(BODY, `t=${NOW},v1=${bad},v1=short,v1=é`, SECRET, {now: NOW})).toMatchObject({
      reason: 'signature_mismatch',
    })
  })

  it('takes the header as Node types it, string or string[]', () => {
    expect(verifySignature(BODY, [stripeHeader(BODY)], SECRET, {now: NOW}).valid).toBe(true)
    // a repeated header: two timestamps, ambiguous
    expect(verifySignature(BODY, [stripeHeader(BODY), stripeHeader(BODY)], SECRET, {now: NOW})).toMatchObject({
      reason: 'malformed_header',
    })
  })

  it('throws on misuse instead of returning a verdict: a parsed body, an empty secret, a bad tolerance or now', () => {
    const header = stripeHeader(BODY)
    expect(() => verifySignature(JSON.parse(BODY), header, SECRET, {now: NOW})).toThrow(
      /parsed JSON body cannot be verified/,
    )
    expect(() => verifySignature(BODY, header, '', {now: NOW})).toThrow(/secret is empty/)
    expect(() => verifySignature(BODY, header, SECRET, {now: NOW, tolerance: -1})).toThrow(RangeError)
    // each would compare false with any drift, and pass a signature of any age
    for (const tolerance of [null, '300', Number.NaN])
      expect(() => verifySignature(BODY, header, SECRET, {now: NOW, tolerance: tolerance as number})).toThrow(
        RangeError,
      )
    for (const now of [Number.NaN, 'x', Number.POSITIVE_INFINITY])
      expect(() => verifySignature(BODY, header, SECRET, {now: now as number})).toThrow(/now must be Unix seconds/)
  })
})

describe('assertValidSignature', () => {
  it('returns the signed timestamp when valid', () => {
    expect(assertValidSignature(BODY, stripeHeader(BODY), SECRET, {now: NOW})).toBe(NOW)
  })

  it('throws a SignatureVerificationError with the reason code when not', () => {
    expect(reasonOf(() => assertValidSignature(BODY, stripeHeader(BODY, NOW - 301), SECRET, {now: NOW}))).toBe(
      'timestamp_outside_tolerance',
    )
    expect(reasonOf(() => assertValidSignature(BODY, undefined, SECRET, {now: NOW}))).toBe('no_signature')
  })
})

describe('signPayload with several secrets (a rotation under way)', () => {
  it('writes one v1 per secret in their order, each verifying alone; an empty list or secret is refused', () => {
    const [a, b] = ['whsec_rotation_new_0123456789abcdef', 'whsec_rotation_old_0123456789abcdef']
    const header = signPayload('{"id":"evt_1"}', [a, b], 1_700_000_000)
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/)
    expect(header.split(',v1=')[1]).toBe(signPayload('{"id":"evt_1"}', a, 1_700_000_000).split('v1=')[1])
    for (const secret of [a, b])
      expect(verifySignature('{"id":"evt_1"}', header, secret, {now: 1_700_000_000})).toMatchObject({valid: true})
    expect(() => signPayload('{}', [])).toThrow(TypeError)
    expect(() => signPayload('{}', [a, ''])).toThrow(TypeError)
  })
})

import {describe, expect, it} from 'vitest'
import {Background} from '../../src/webhooks/background.js'

/** A Background on a clock the test moves, and how many starts it allows in a row at the current time. */
function setup() {
  const clock = {ms: 1000}
  const background = new Background(() => clock.ms)
  const startsNow = () => {
    let n = 0
    while (background.mayStart() && n < 1000) {
      background.started()
      n++
    }
    return n
  }
  return {clock, background, startsNow}
}

describe('Background (docs/storage.md, "Deferred fan-out")', () => {
  it('is busy for 10 ms after each request, and not before the first', () => {
    const {clock, background} = setup()
    expect(background.busy).toBe(false)
    background.noteRequest()
    clock.ms += 9
    expect(background.busy).toBe(true)
    clock.ms += 1
    expect(background.busy).toBe(false)
  })

  it('lets every attempt start while the server is not busy', () => {
    const {startsNow} = setup()
    expect(startsNow()).toBe(1000)
  })

  it('while busy, paces starts at 2 a ms after a burst of 8, however many wait', () => {
    const {clock, background, startsNow} = setup()
    background.noteRequest()
    expect(startsNow()).toBe(8)
    clock.ms += 1
    background.noteRequest()
    expect(startsNow()).toBe(2)
    clock.ms += 3
    background.noteRequest()
    expect(startsNow()).toBe(6)
  })
})

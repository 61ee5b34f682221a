import {describe, expect, it} from 'vitest'
import {Turns} from '../../src/shared/turns.js'

describe('turns', () => {
  it('run each piece once the one before has ended, a failure its own caller only', async () => {
    const turns = new Turns()
    const order: string[] = []
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const first = turns.run(async () => {
      await held
      order.push('first')
      throw new Error('first failed')
    })
    const second = turns.run(() => {
      order.push('second')
      return 2
    })
    const ended = turns.ended().then(() => order.push('ended'))
    expect(order).toEqual([])
    release()
    await expect(first).rejects.toThrow('first failed')
    expect(await second).toBe(2)
    await ended
    expect(order).toEqual(['first', 'second', 'ended'])
  })
})

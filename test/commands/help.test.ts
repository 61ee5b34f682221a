import {describe, expect, it} from 'vitest'
import {runCommand} from '../helpers/cli.js'
import {manifestCommands} from '../helpers/manifest.js'

const commands = manifestCommands()

describe('--help of every command', () => {
  it('has a summary, a DESCRIPTION beyond it and at least one example', () => {
    expect(commands.length).toBeGreaterThan(40)
    const lacking = commands
      .filter(([, c]) => !c.summary || !c.description?.trim() || !c.examples?.length)
      .map(([id]) => id.replaceAll(':', ' '))
    expect(lacking).toEqual([])
  })

  it('shows no default of a DURATION flag as bare seconds: it is written as a duration (5m), as the flag takes it', () => {
    const bare = commands.flatMap(([id, c]) =>
      Object.entries(c.flags)
        .filter(([, flag]) => flag.helpValue === 'DURATION' && typeof flag.default === 'number')
        .map(([name]) => `${id.replaceAll(':', ' ')} --${name}`),
    )
    expect(bare).toEqual([])
  })

  it('is -h too, the first thing many type: for the CLI, a topic, a command and a lean one (serve, verify)', async () => {
    for (const args of [[], ['checks'], ['checks', 'list'], ['serve'], ['verify']]) {
      const [short, long] = await Promise.all([runCommand([...args, '-h']), runCommand([...args, '--help'])])
      expect([short.code, short.stdout], args.join(' ')).toEqual([0, long.stdout])
      expect(long.stdout).toContain('USAGE')
    }
  })
})

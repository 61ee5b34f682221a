import {spawn} from 'node:child_process'
import {closeSync, openSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

/** Runs the CLI with stdout on /dev/full, where every write fails with ENOSPC, as on a full disk. */
async function runIntoFullDisk(args: string[]): Promise<{code: number | null; stderr: string}> {
  const full = openSync('/dev/full', 'w')
  try {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], {stdio: ['ignore', full, 'pipe']})
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    return {code, stderr}
  } finally {
    closeSync(full)
  }
}

describe('stdout that cannot be written', () => {
  it.each([
    ['through oclif', ['openapi']],
    ['on the lean path', ['sign', '--secret', 'whsec_x', '--payload', 'fixtures/checks/open.json']],
  ])('ends the command %s with exit 1 and one line that says so, no stack trace', async (_, args) => {
    const {code, stderr} = await runIntoFullDisk(args)
    expect(code).toBe(1)
    expect(stderr).toBe('Error: could not write the output to stdout (ENOSPC: no space left on device, write).\n')
  })

  it("leaves exec COMMAND's exit code: its stdout is COMMAND's, and exec writes nothing there", async () => {
    const {code, stderr} = await runIntoFullDisk(['exec', '--', process.execPath, '-e', 'process.exit(7)'])
    expect(code).toBe(7)
    expect(stderr).not.toContain('could not write the output')
  })
})

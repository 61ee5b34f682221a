import {createReadStream} from 'node:fs'
import {tooLargeToParse} from '../domain/json-memory.js'
import {type Seed} from '../domain/seed-schema.js'
import {withoutBom} from '../shared/json-file.js'
import {findFile} from '../shared/package-file.js'
import {readAtMost, SNAPSHOT_BODY_LIMIT} from '../shared/read-at-most.js'
import {UnusableInputError} from '../shared/unusable-input.js'
import {parseSeed, SEED_HINT} from '../store/seed.js'

/**
 * The JSON of a file a server starts with (`--seed`, `--import`), read,
 * weighed before it is parsed as a request's body is (domain/json-memory.ts),
 * and parsed: all before the server listens. An unusable file is a wrong
 * command line (exit 2), its message starting with `flag` and naming the
 * file; `hint` says what to do with a file that is not JSON.
 *
 * @example
 * const json = await readStartFile('fixtures/seed.json', 'seed', SEED_HINT)
 */
export async function readStartFile(path: string, flag: string, hint: string): Promise<unknown> {
  let bytes: Buffer | undefined
  try {
    bytes = await readAtMost(createReadStream((await findFile(path)) ?? path), SNAPSHOT_BODY_LIMIT)
  } catch (error) {
    throw new UnusableInputError(
      `${flag}: ${path} cannot be read: ${(error as Error).message}. Give the path of a JSON file you can read.`,
    )
  }
  if (!bytes)
    throw new UnusableInputError(
      `${flag}: ${path} is not read: it holds more than ${SNAPSHOT_BODY_LIMIT / 1024 ** 2} MiB, as no snapshot's import does. Give the path of a JSON file.`,
    )
  const text = bytes.toString('utf8')
  const tooLarge = tooLargeToParse(text)
  if (tooLarge) throw new UnusableInputError(`${flag}: ${path} is not read: ${tooLarge}.`)
  try {
    return JSON.parse(withoutBom(text)) as unknown
  } catch (error) {
    throw new UnusableInputError(`${flag}: ${path} is not JSON: ${(error as Error).message}. ${hint}`)
  }
}

/** Reads and checks a `--seed` file; the error names the file and the first problem. */
export const readSeedFile = async (path: string): Promise<Seed> =>
  parseSeed(await readStartFile(path, 'seed', SEED_HINT), path)

/**
 * vitest setupFile: after each test file, removes the temp dirs it made with `makeTempDir`, whether or not its
 * tests removed them. A hook registered here runs after the file's own (vitest runs after-hooks as a stack),
 * so the servers and processes that used them have stopped.
 */
import {afterAll} from 'vitest'
import {removeTempDirs} from './temp-dirs.js'

afterAll(removeTempDirs)

import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // tests start real servers and child processes; two cores do not take more
    maxWorkers: 2,
    // commands run in process (test/helpers/run-command.ts) print through
    // console: it must write to process.stdout, where the run captures it
    disableConsoleIntercept: true,
  },
})

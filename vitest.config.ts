import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // tests start real servers and child processes; two cores do not take more
    maxWorkers: 2,
  },
})

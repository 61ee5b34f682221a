export * from './client.js'
export * from './config.js'
export * from './errors.js'

// one implementation for the tests, the bench and the test PostgreSQL
export {freePort} from '../../scripts/free-port.js'

// The method's numbers, shared by the groups and written to results.json.

export const CHECKS = 10_000
export const FEW_CHECKS = 100
export const RUNS = 3
export const PUSH_RUNS = Number(process.env.BENCH_ROUNDS) || 5
export const RUN_SECONDS = 3
export const PEER_SECONDS = 2
/**
 * json-server rewrites its whole 10,000-record file for each PUT (70–115 ms each on the 2-core machine): its
 * 50 connections' first answers took 2.2 s, after a 2 s round had ended, which then counted none.
 */
export const JSON_SERVER_SECONDS = 6
/** Runs compared with runs of their own kind (GET with GET, 100 checks with 10,000): shorter, to keep the bench under 4 minutes. */
export const SHORT_SECONDS = 2
/** The JVM compiles WireMock's hot path for several seconds: a longer warm-up. */
export const JVM_WARMUP_SECONDS = 5
/** A server already warmed by another stream, or a second stream of a warm one. */
export const SHORT_WARMUP_SECONDS = 1
export const WARMUP_SECONDS = 2
export const DELIVERIES = 2000
/**
 * Runs of deliveries by turns, the journal's then PostgreSQL's (`--only postgres`): each lasts about a second,
 * and three runs' ratios spread 0.43–0.78 on the 2-core machine.
 */
export const DELIVERY_RUNS = 5
export const LATENCY_SAMPLES = 40
export const LATENCY_WARMUP = 5
export const STARTUP_RUNS = 5
export const VERIFY_RUNS = 15
export const FAN_OUT_ROUNDS = 3

// The bounds of a batch (C19), a leaf both the schemas and the acceptance read.
export const MAX_BATCH_ITEMS = 10_000
/** Items not ended this long after acceptance end `expired`, free (the jobs' own 24 h deadline). */
export const BATCH_DEADLINE_HOURS = 24
/** How many items' documents are read for their quote at once. */
export const QUOTE_CONCURRENCY = 8
/** How far ahead of its run_at the feeder hands out a batch item (the pace's slots): feeds come about every half of it. */
export const PACE_HORIZON_SECONDS = 1
/** The longest the acceptance of a batch's items runs before it lets the process's other requests in. */
export const ACCEPT_SLICE_MS = 10
/** POST /v1/batches per account and minute, dry runs included (RATE_LIMITS key `batches` overrides it). */
export const BATCH_REQUESTS_PER_MINUTE = 10

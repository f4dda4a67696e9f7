// The bounds of a batch (C19), a leaf both the schemas and the acceptance read.
export const MAX_BATCH_ITEMS = 10_000
/** Items not ended this long after acceptance end `expired`, free (the jobs' own 24 h deadline). */
export const BATCH_DEADLINE_HOURS = 24
/** How many items' documents are read for their quote at once. */
export const QUOTE_CONCURRENCY = 8

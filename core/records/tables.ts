// The tables kept in time partitions, one entry each. A table joins by one migration line,
// `select partition_by_range('<table>', '<time column>', 'day' | 'month')` (or created `partition by range` with a
// `<table>_default` partition), and one entry here: maintenance then creates its partitions ahead and drops those
// past its retention.
import { AUDIT_RETENTION_DAYS } from '../audit/list.ts'
import type { Config } from '../config.ts'

export interface PartitionedTable {
  table: string
  timeColumn: string
  /** One partition per day (tables of millions of rows a day) or per month. */
  width: 'day' | 'month'
  /** How many days a row is kept at least; it goes with its whole partition within one period after. */
  retentionDays: (config: Config) => number
  /**
   * Append-only (the audit log): its partitions refuse TRUNCATE and UPDATE, and its retention is counted on the
   * database's clock, so a service clock running ahead never removes an entry early.
   */
  appendOnly?: boolean
}

export const PARTITIONED_TABLES: readonly PartitionedTable[] = [
  { table: 'request_log', timeColumn: 'created_at', width: 'day', retentionDays: (c) => c.requestLogRetentionDays },
  { table: 'usage_events', timeColumn: 'created_at', width: 'day', retentionDays: (c) => c.usageEventsRetentionDays },
  { table: 'model_requests', timeColumn: 'created_at', width: 'day', retentionDays: (c) => c.modelRequestsRetentionDays },
  {
    table: 'audit_entries',
    timeColumn: 'at',
    width: 'month',
    retentionDays: (c) => Math.max(AUDIT_RETENTION_DAYS, c.auditLogRetentionDays),
    appendOnly: true,
  },
  // An event's deliveries carry its created_at (migration 0029): they go the same day; attempts, never older than
  // their event, the same day or later.
  { table: 'events', timeColumn: 'created_at', width: 'day', retentionDays: (c) => c.eventsRetentionDays },
  { table: 'event_deliveries', timeColumn: 'event_created_at', width: 'day', retentionDays: (c) => c.eventsRetentionDays },
  { table: 'event_attempts', timeColumn: 'at', width: 'day', retentionDays: (c) => c.eventsRetentionDays },
]

/** Partitions maintenance keeps ready beyond the current period. */
export const PERIODS_AHEAD = { day: 7, month: 2 } as const

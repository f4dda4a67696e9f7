// Creating partitions ahead and dropping those past retention. A partition whose range is a period is dropped
// whole once its end is past the retention (no DELETE: no bloat, no rows rewritten); the partition of the rows a
// table held before it was partitioned (from MINVALUE) and the default one lose their old rows by DELETE until the
// first is wholly past the retention and dropped too.
import type { Config } from '../config.ts'
import type { Query } from '../db/database.ts'
import { PERIODS_AHEAD, type PartitionedTable } from './tables.ts'

export interface Partition {
  name: string
  /** null: from MINVALUE (the rows before partitioning) or the default partition */
  from: Date | null
  /** null: the default partition */
  to: Date | null
}

export interface PartitionPass {
  created: string[]
  dropped: string[]
  rowsDeleted: number
}

export async function listPartitions(db: Query, table: string): Promise<Partition[]> {
  const rows = await db.sql<{ name: string; from: Date | null; to: Date | null }>(
    `select c.relname as name,
            (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz as "from",
            (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz as "to"
       from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ?::regclass
      order by 3 nulls last`,
    [table],
  )
  return rows.map((r) => ({ name: r.name, from: r.from && new Date(r.from), to: r.to && new Date(r.to) }))
}

/** The start of the period (UTC day or month) holding `at`, moved by `periods`. */
export function periodStart(at: Date, width: PartitionedTable['width'], periods = 0): Date {
  return width === 'day'
    ? new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + periods))
    : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + periods, 1))
}

export function partitionName(t: PartitionedTable, start: Date): string {
  const iso = start.toISOString()
  return `${t.table}_p${iso.slice(0, 4)}${iso.slice(5, 7)}${t.width === 'day' ? iso.slice(8, 10) : ''}`
}

/** The current period's partition and PERIODS_AHEAD more, those not there yet. */
export async function createPartitionsAhead(db: Query, t: PartitionedTable, now: Date): Promise<string[]> {
  const existing = (await listPartitions(db, t.table)).filter((p) => p.to !== null)
  const created: string[] = []
  for (let i = 0; i <= PERIODS_AHEAD[t.width]; i++) {
    const from = periodStart(now, t.width, i)
    const to = periodStart(now, t.width, i + 1)
    if (existing.some((p) => (p.from === null || p.from < to) && p.to! > from)) continue
    const name = partitionName(t, from)
    await db.sql(`select create_time_partition(?, ?, ?, ?, ?, ?)`, [t.table, t.timeColumn, from, to, name, t.appendOnly === true])
    created.push(name)
  }
  return created
}

/** Drops the partitions wholly older than the retention; deletes the old rows of the legacy and default ones. */
export async function dropExpiredPartitions(
  db: Query,
  t: PartitionedTable,
  now: Date,
  config: Config,
): Promise<Omit<PartitionPass, 'created'>> {
  const [clock] = await db.sql<{ now: string }>(`select now()::text as now`)
  const databaseNow = new Date(clock!.now)
  const reference = t.appendOnly && databaseNow < now ? databaseNow : now
  const cutoff = new Date(reference.getTime() - t.retentionDays(config) * 86400_000)
  const dropped: string[] = []
  let rowsDeleted = 0
  for (const p of await listPartitions(db, t.table)) {
    if (p.to !== null && p.to <= cutoff) {
      await db.sql(`select drop_time_partition(?)`, [p.name])
      dropped.push(p.name)
    } else if (p.from === null) {
      const rows = await db.sql<{ n: number }>(
        `with d as (delete from ${ident(p.name)} where ${ident(t.timeColumn)} < ? returning 1) select count(*)::int as n from d`,
        [cutoff],
      )
      rowsDeleted += rows[0]!.n
    }
  }
  return { dropped, rowsDeleted }
}

/** One maintenance pass over every partitioned table. */
export async function maintainPartitions(
  db: Query,
  tables: readonly PartitionedTable[],
  now: Date,
  config: Config,
): Promise<Record<string, PartitionPass>> {
  const passes: Record<string, PartitionPass> = {}
  for (const t of tables) {
    const created = await createPartitionsAhead(db, t, now)
    passes[t.table] = { created, ...(await dropExpiredPartitions(db, t, now, config)) }
  }
  return passes
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`

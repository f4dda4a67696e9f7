// A batch is kept as long as its items: finished jobs are removed 30 days after they end (core/jobs/stale.ts),
// so a batch whose last item ended that long ago goes too (its remaining rows with it: on delete cascade).
const RETENTION_DAYS = 30

export async function removeOldBatches(q: import('../db/database.ts').Query, now: Date): Promise<number> {
  const removed = await q.sql(
    `delete from batches where id in (select id from batches where completed_at <= ? order by id for update) returning id`,
    [new Date(now.getTime() - RETENTION_DAYS * 86400_000)],
  )
  return removed.length
}

// The maintenance pass (C7): jobs held by dead workers, stale jobs, stranded sync holds and credit leases, the 24 h
// idempotency window, plan renewals, expired dashboard sign-in links, sessions, invitations and single sign-on flows,
// cached results and completed reviews past their retention, and the time-partitioned records (request log, usage
// events, model requests, audit log, account events with their deliveries): partitions made ahead, those past their
// retention dropped.
import type Router from '@koa/router'
import { renewPlans } from './accounts/accounts.ts'
import { feedBatches } from './batches/feed.ts'
import { removeOldBatches } from './batches/retention.ts'
import { pruneResultCache } from './cache/store.ts'
import { removeExpiredSignIns } from './dashboard/session.ts'
import { strictRouter } from './http/routing.ts'
import { removeExpiredIdempotencyRecords } from './idempotency/idempotency.ts'
import { pruneReviews } from './reviews/queue.ts'
import { maintainPartitions, type PartitionPass } from './records/partitions.ts'
import { PARTITIONED_TABLES } from './records/tables.ts'
import type { Services } from './services.ts'
import { releaseExpiredHolds } from './wallet/wallet.ts'
import { settleExpiredLeases } from './wallet/lease.ts'
import { recoverDeadWorkers } from './jobs/liveness.ts'
import { failStaleJobs, type StaleJobsReport } from './jobs/stale.ts'

export const MAINTENANCE_TASK = 'maintenance'

export interface MaintenanceReport extends StaleJobsReport {
  /** Dead workers whose jobs went back to the queue (the live workers' timers usually get there first). */
  deadWorkers: number
  jobsReturned: number
  batchesRemoved: number
  holdsReleased: number
  /** Credit leases past their expiry (their process died): charges counted, the rest returned. */
  leasesSettled: number
  idempotencyRecordsRemoved: number
  plansRenewed: number
  signInRowsRemoved: number
  /** Result cache entries past RESULT_CACHE_TTL_HOURS. */
  cachedResultsRemoved: number
  /** Completed reviews past their 30 days (C21). */
  reviewsRemoved: number
  /** Per partitioned table: the partitions created and dropped, and old rows deleted from the pre-partitioning one. */
  records: Record<string, PartitionPass>
}

export async function runMaintenance(services: Services): Promise<MaintenanceReport> {
  const now = services.now()
  const recovered = await recoverDeadWorkers(services.db, 'maintenance')
  const jobs = await failStaleJobs(services, now)
  await feedBatches(services) // what the workers' timers would feed, should none be running
  const batchesRemoved = await removeOldBatches(services.db, now)
  const leasesSettled = await settleExpiredLeases(services.db, now)
  const holdsReleased = await releaseExpiredHolds(services.db, now)
  const idempotencyRecordsRemoved = await removeExpiredIdempotencyRecords(services.db, now)
  const plansRenewed = await renewPlans(services.db, now)
  const signInRowsRemoved = await removeExpiredSignIns(services.db, now)
  const cachedResultsRemoved = await pruneResultCache(services.db, now)
  const reviewsRemoved = await pruneReviews(services.db, now)
  const records = await maintainPartitions(services.db, PARTITIONED_TABLES, now, services.config)
  return {
    deadWorkers: recovered.length,
    jobsReturned: recovered.reduce((n, r) => n + r.jobsReturned, 0),
    ...jobs,
    batchesRemoved,
    holdsReleased,
    leasesSettled,
    idempotencyRecordsRemoved,
    plansRenewed,
    signInRowsRemoved,
    cachedResultsRemoved,
    reviewsRemoved,
    records,
  }
}

/** POST /internal/maintenance: one pass on demand (MAINTENANCE_SECRET, checked by operatorGate before routing). */
export function maintenanceRouter(services: Services): Router {
  const router = strictRouter()
  router.post('/internal/maintenance', async (ctx) => {
    ctx.body = await runMaintenance(services)
  })
  return router
}

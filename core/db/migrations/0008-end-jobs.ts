// A worker's group of job endings in one statement (core/jobs/end.ts): the rows locked, each ending checked
// against the state its ender expects, the money moved by the wallet's own capture_hold / release_hold, the
// rows and inputs written, instead of a round trip per job. Issue 18: the per-job round trips of a group were
// most of a worker's database time.
import { Migration } from '@mikro-orm/migrations'

export class Migration0008EndJobs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- One ending per array position: a success carries p_results[i] (the checked result, without usage), a failure
-- p_errors[i] and the statuses it may end from (p_from[i]), and for a lost worker the time its lease must have
-- run out by (p_lease_expired_by[i]). Returns the positions that ended, with the job and its new status; a job
-- named twice ends by its first ending only.
-- end_jobs: its current text is core/wallet/sql/end_jobs.sql
`)
  }
}

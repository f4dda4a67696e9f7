// Issue 33: one lock order for every transaction that moves money or claims an idempotency key, taken by
// lock_money() (docs/locking.md). Async acceptances with Idempotency-Keys deadlocked: reserve_call's
// insert of the idempotency record took FOR KEY SHARE on the account (the foreign key's check), then asked for
// the account FOR UPDATE, which conflicts with the KEY SHARE every other acceptance of the account held the same
// way: each waited for the other (40P01 in "select … from accounts … for update").
import { Migration } from '@mikro-orm/migrations'

export class Migration0011LockOrder extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- THE LOCK ORDER of every money or idempotency transaction (docs/locking.md); never an earlier one after a later one:
--   1. the call's idempotency record (account_id, key): claimed by reserve_call's insert, or locked here
--   2. accounts, ascending id
--   3. api_keys, ascending id
--   4. jobs, ascending id; then holds; then what hangs off them (job_inputs, ledger, usage, webhook rows)
-- Accounts and keys are locked FOR NO KEY UPDATE, never FOR UPDATE: every insert that references them (a record,
-- a hold, a job, a ledger row) takes FOR KEY SHARE, which FOR UPDATE conflicts with (the cycle of issue 33).
-- Locking a row again that the transaction already holds is free, so callers of callers may call it too.
-- lock_money: its current text is core/wallet/sql/lock_money.sql

-- As in 0006, with the locks of lock_money after the claim (step 1).
-- reserve_call: its current text is core/wallet/sql/reserve_call.sql

-- Acceptance of an async call (C7) in one statement: the hold (reserve_call), the job row, its input, its
-- graphile-worker job and the key's 202 commit together, and the account's lock is held for this statement
-- and its commit only (it was held across four round trips of a transaction). max_attempts 1: a model call is
-- never blindly repeated.
-- accept_job: its current text is core/wallet/sql/accept_job.sql

-- As in 0006: the hold is read unlocked for its account and key, the order taken, then the hold checked.
-- capture_hold: its current text is core/wallet/sql/capture_hold.sql

-- As in 0001, in the order of lock_money.
-- release_hold: its current text is core/wallet/sql/release_hold.sql

-- As in 0006, under lock_money.
-- credit_account: its current text is core/wallet/sql/credit_account.sql

-- As in 0008, with the accounts and keys of the whole group locked first (they came after the jobs before).
-- end_jobs: its current text is core/wallet/sql/end_jobs.sql
`)
  }
}

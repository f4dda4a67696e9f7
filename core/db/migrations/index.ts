// The kernel's numbered migrations. A capability's own tables live in its folder (capabilities/<name>/migrations/,
// found by core/db/capability-migrations.ts); both share one numbering. After them, the repeatable folders: files
// of `create or replace function …` applied whenever their text changed (core/db/repeatable.ts).
import { Migration0001Kernel } from './0001-kernel.ts'
import { Migration0004WebhookSigning } from './0004-webhook-signing.ts'
import { Migration0005Billing } from './0005-billing.ts'
import { Migration0006OneSpendRule } from './0006-one-spend-rule.ts'
import { Migration0008EndJobs } from './0008-end-jobs.ts'
import { Migration0009ModelRequests } from './0009-model-requests.ts'
import { Migration0010TestModeAndRequestLog } from './0010-test-mode-and-request-log.ts'
import { Migration0011LockOrder } from './0011-lock-order.ts'
import { Migration0012JobProgress } from './0012-job-progress.ts'
import { Migration0013RevocationsAndAcceptance } from './0013-revocations-and-acceptance.ts'
import { Migration0014PriceBySize } from './0014-price-by-size.ts'
import { Migration0017WorkerLiveness } from './0017-worker-liveness.ts'
import { Migration0018LivemodeAndDebugging } from './0018-livemode-and-debugging.ts'
import { Migration0020Teams } from './0020-teams.ts'
import { Migration0022WebhookSecretsPerMode } from './0022-webhook-secrets-per-mode.ts'
import { Migration0024AccountEvents } from './0024-account-events.ts'
import { Migration0026Batches } from './0026-batches.ts'
import { Migration0025ResultCache } from './0025-result-cache.ts'
import { Migration0027Reviews } from './0027-reviews.ts'
import { Migration0028TimePartitions } from './0028-time-partitions.ts'
import { Migration0029PartitionEvents } from './0029-partition-events.ts'
import { Migration0031CreditLeases } from './0031-credit-leases.ts'
import { Migration0032ResultCacheFlights } from './0032-result-cache-flights.ts'
import { Migration0033LeaseFloor } from './0033-lease-floor.ts'
import { Migration0034ReviewDocuments } from './0034-review-documents.ts'

export const migrations = [
  { name: '0001-kernel', class: Migration0001Kernel },
  { name: '0004-webhook-signing', class: Migration0004WebhookSigning },
  { name: '0005-billing', class: Migration0005Billing },
  { name: '0006-one-spend-rule', class: Migration0006OneSpendRule },
  { name: '0008-end-jobs', class: Migration0008EndJobs },
  { name: '0009-model-requests', class: Migration0009ModelRequests },
  { name: '0010-test-mode-and-request-log', class: Migration0010TestModeAndRequestLog },
  { name: '0011-lock-order', class: Migration0011LockOrder },
  { name: '0012-job-progress', class: Migration0012JobProgress },
  { name: '0013-revocations-and-acceptance', class: Migration0013RevocationsAndAcceptance },
  { name: '0014-price-by-size', class: Migration0014PriceBySize },
  { name: '0017-worker-liveness', class: Migration0017WorkerLiveness },
  { name: '0018-livemode-and-debugging', class: Migration0018LivemodeAndDebugging },
  { name: '0020-teams', class: Migration0020Teams },
  { name: '0022-webhook-secrets-per-mode', class: Migration0022WebhookSecretsPerMode },
  { name: '0024-account-events', class: Migration0024AccountEvents },
  { name: '0026-batches', class: Migration0026Batches },
  { name: '0025-result-cache', class: Migration0025ResultCache },
  { name: '0027-reviews', class: Migration0027Reviews },
  { name: '0028-time-partitions', class: Migration0028TimePartitions },
  { name: '0029-partition-events', class: Migration0029PartitionEvents },
  { name: '0031-credit-leases', class: Migration0031CreditLeases },
  { name: '0032-result-cache-flights', class: Migration0032ResultCacheFlights },
  { name: '0033-lease-floor', class: Migration0033LeaseFloor },
  { name: '0034-review-documents', class: Migration0034ReviewDocuments },
]

/** Where the current text of the kernel's SQL functions lives, one file per function (applied in this order). */
export const repeatableFolders: readonly URL[] = [
  new URL('../../wallet/sql/', import.meta.url),
  new URL('../../cache/sql/', import.meta.url),
  new URL('../../events/sql/', import.meta.url),
]

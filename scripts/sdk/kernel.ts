// The kernel's shapes and routes as the SDK publishes them: the only table to edit when a kernel route or
// shape changes. Capability methods need no entry: they come from the manifests.
//
// Every entry is the TypeBox schema the kernel builds that body with (the same ones core/openapi.ts publishes),
// so the SDK cannot drift from the server.
import { Type, type TSchema } from '@sinclair/typebox'
import { AccountSummary } from '../../core/accounts/accounts.ts'
import { ERROR_STATUS } from '../../core/errors.ts'
import { JobAccepted, JobView } from '../../core/jobs/view.ts'
import { DryRun } from '../../core/pipeline/dry-run.ts'
import { UsageQuery, UsageResponse } from '../../core/usage/routes.ts'
import { Usage } from '../../core/wallet/wallet.ts'
import { WebhookPayload } from '../../core/webhooks/webhooks.ts'

export const KERNEL_TYPES: Record<string, TSchema> = {
  ErrorCode: Type.Union(
    Object.keys(ERROR_STATUS).map((code) => Type.Literal(code)),
    { description: 'The stable error codes (C2)' },
  ),
  Usage,
  DryRun,
  JobAccepted,
  Job: JobView,
  Account: AccountSummary,
  WebhookEvent: WebhookPayload,
  UsageQuery,
  UsagePage: UsageResponse,
}

/**
 * Kernel routes (GET), one line each: `params` are the path parameters, in order, of the generated method;
 * `query` names a KERNEL_TYPES object sent as the query string. E.g. for a usage report:
 * { name: 'usage', path: '/v1/usage', query: 'UsageQuery', returns: 'UsageReport', summary: '…' } (plus its two types).
 */
export const KERNEL_METHODS: Array<{ name: string; path: string; params?: string[]; query?: string; returns: string; summary: string }> = [
  { name: 'account', path: '/v1/account', returns: 'Account', summary: 'Balance, reserved and available credits, and plan. Free.' },
  {
    name: 'getJob',
    path: '/v1/jobs/{id}',
    params: ['id'],
    returns: 'Job',
    summary: 'An async job: status, and result or error once it has ended. Free.',
  },
  {
    name: 'usage',
    path: '/v1/usage',
    query: 'UsageQuery',
    returns: 'UsagePage',
    summary: 'Ledger entries (newest first, with a cursor) and daily totals per endpoint. Free.',
  },
]

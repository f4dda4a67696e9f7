// The kernel's shapes and routes as the SDK publishes them: the only table to edit when a kernel route or
// shape changes. Capability methods need no entry: they come from the manifests.
//
// Account and Job follow the lead's decisions for issue 14 (account superset; a failed job's `error` is the
// message and `errorCode` the C2 code). When the kernel exports the TypeBox schemas its routes build their
// bodies from, point each entry below at that schema instead of spelling it here.
import { Type, type TSchema } from '@sinclair/typebox'
import { ERROR_STATUS } from '../../core/errors.ts'

const DateTime = Type.String({ format: 'date-time' })
const Usage = Type.Object(
  {
    credits: Type.Integer({ description: 'Credits this call was charged' }),
    balanceRemaining: Type.Integer({ description: 'Credits available after the charge' }),
  },
  { description: 'What the call cost' },
)

export const KERNEL_TYPES: Record<string, TSchema> = {
  ErrorCode: Type.Union(Object.keys(ERROR_STATUS).map((code) => Type.Literal(code)), { description: 'The stable error codes (C2)' }),
  Usage,
  DryRun: Type.Object(
    {
      dryRun: Type.Literal(true),
      endpoint: Type.String(),
      liveStatus: Type.Integer({ description: 'The status the live call would get' }),
      wouldCharge: Type.Integer(),
      price: Type.Integer(),
      balance: Type.Integer(),
      error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: true })),
    },
    { description: 'The report of a dry run (Service-Dry-Run): what the live call would do; nothing is charged' },
  ),
  JobAccepted: Type.Object({ jobId: Type.String(), status: Type.Literal('queued'), requestId: Type.String() }, { description: 'An async call accepted as a job' }),
  Job: Type.Object(
    {
      jobId: Type.String(),
      endpoint: Type.String(),
      status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
      createdAt: DateTime,
      updatedAt: DateTime,
      startedAt: Type.Optional(DateTime),
      finishedAt: Type.Optional(DateTime),
      requestId: Type.String(),
      result: Type.Optional(Type.Object({ usage: Type.Ref('Usage') }, { additionalProperties: true, description: 'The body the synchronous call returns, usage included' })),
      error: Type.Optional(Type.String({ description: 'Why the job failed, for people' })),
      errorCode: Type.Optional(Type.String({ description: 'Why the job failed, the stable code (C2)' })),
    },
    { description: 'An async job' },
  ),
  Account: Type.Object(
    {
      id: Type.String(),
      balanceCredits: Type.Number({ description: 'Credits on the account (= balance)' }),
      creditUsd: Type.Number({ description: 'The value of one credit in USD (0.01)' }),
      balanceUsd: Type.Number(),
      balance: Type.Integer(),
      reserved: Type.Integer({ description: 'Held by calls in flight' }),
      available: Type.Integer({ description: 'balance - reserved: what new calls can spend' }),
      plan: Type.String(),
    },
    { description: 'GET /v1/account' },
  ),
  WebhookEvent: Type.Object(
    {
      deliveryId: Type.String({ description: 'The same on every retry of one delivery: deduplicate on it' }),
      event: Type.Union([Type.Literal('job.completed'), Type.Literal('job.failed')]),
      createdAt: DateTime,
      job: Type.Ref('Job'),
    },
    { description: 'The body POSTed to callbackUrl when an async job ends' },
  ),
}

/**
 * Kernel routes (GET), one line each: `params` are the path parameters, in order, of the generated method;
 * `query` names a KERNEL_TYPES object sent as the query string. E.g. for a usage report:
 * { name: 'usage', path: '/v1/usage', query: 'UsageQuery', returns: 'UsageReport', summary: '…' } (plus its two types).
 */
export const KERNEL_METHODS: Array<{ name: string; path: string; params?: string[]; query?: string; returns: string; summary: string }> = [
  { name: 'account', path: '/v1/account', returns: 'Account', summary: 'Balance, reserved and available credits, and plan. Free.' },
  { name: 'getJob', path: '/v1/jobs/{id}', params: ['id'], returns: 'Job', summary: 'An async job: status, and result or error once it has ended. Free.' },
]

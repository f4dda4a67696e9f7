// MikroORM entities for the rows the kernel reads and writes as objects (accounts, keys, jobs). Balances
// change only through the SQL functions of the migrations (core/wallet).
import { EntitySchema } from '@mikro-orm/core'

export interface Account {
  id: string
  email: string
  plan: 'none' | 'developer' | 'team'
  firstPackUsed: boolean
  balance: string
  reserved: string
  webhookSecret?: string | null
  planRenewsAt?: Date | null
  createdAt: Date
}

export const AccountSchema = new EntitySchema<Account>({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: { type: 'uuid', primary: true },
    email: { type: 'text', unique: true },
    plan: { type: 'text' },
    firstPackUsed: { type: 'boolean', fieldName: 'first_pack_used' },
    // bigint columns come back as strings: credits are never floats.
    balance: { type: 'bigint', persist: false },
    reserved: { type: 'bigint', persist: false },
    webhookSecret: { type: 'text', nullable: true, fieldName: 'webhook_secret', lazy: true },
    planRenewsAt: { type: 'datetime', nullable: true, fieldName: 'plan_renews_at' },
    createdAt: { type: 'datetime', fieldName: 'created_at', onCreate: () => new Date() },
  },
})

export interface ApiKey {
  id: string
  accountId: string
  name?: string | null
  keyHash: Buffer
  prefix: string
  monthlySpendCap?: string | null
  createdAt: Date
  revokedAt?: Date | null
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: { type: 'uuid', primary: true },
    accountId: { type: 'uuid', fieldName: 'account_id' },
    name: { type: 'text', nullable: true },
    keyHash: { type: 'blob', fieldName: 'key_hash', lazy: true },
    prefix: { type: 'text' },
    monthlySpendCap: { type: 'bigint', nullable: true, fieldName: 'monthly_spend_cap' },
    createdAt: { type: 'datetime', fieldName: 'created_at', onCreate: () => new Date() },
    revokedAt: { type: 'datetime', nullable: true, fieldName: 'revoked_at' },
  },
})

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export interface Job {
  id: string
  accountId: string
  keyId: string
  endpoint: string
  status: JobStatus
  requestId: string
  holdId: string
  idempotencyKey?: string | null
  callbackUrl?: string | null
  result?: string | null
  error?: { code: string; message: string } | null
  leaseUntil?: Date | null
  createdAt: Date
  updatedAt: Date
  startedAt?: Date | null
  finishedAt?: Date | null
}

export const JobSchema = new EntitySchema<Job>({
  name: 'Job',
  tableName: 'jobs',
  properties: {
    id: { type: 'uuid', primary: true },
    accountId: { type: 'uuid', fieldName: 'account_id' },
    keyId: { type: 'uuid', fieldName: 'key_id' },
    endpoint: { type: 'text' },
    status: { type: 'text' },
    requestId: { type: 'text', fieldName: 'request_id' },
    holdId: { type: 'uuid', fieldName: 'hold_id' },
    idempotencyKey: { type: 'text', nullable: true, fieldName: 'idempotency_key' },
    callbackUrl: { type: 'text', nullable: true, fieldName: 'callback_url' },
    result: { type: 'text', nullable: true },
    error: { type: 'json', nullable: true },
    leaseUntil: { type: 'datetime', nullable: true, fieldName: 'lease_until' },
    createdAt: { type: 'datetime', fieldName: 'created_at' },
    updatedAt: { type: 'datetime', fieldName: 'updated_at' },
    startedAt: { type: 'datetime', nullable: true, fieldName: 'started_at' },
    finishedAt: { type: 'datetime', nullable: true, fieldName: 'finished_at' },
  },
})

export const entities = [AccountSchema, ApiKeySchema, JobSchema]

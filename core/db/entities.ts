// MikroORM entities for the rows the kernel reads and writes as objects (accounts, keys). Balances
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
  mode: 'live' | 'test'
  sealedKey?: string | null
  keyHash: Buffer
  prefix: string
  monthlySpendCap?: string | null
  permissions: 'all' | 'call' | 'read'
  capabilities?: string[] | null
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
    mode: { type: 'text' },
    sealedKey: { type: 'text', nullable: true, fieldName: 'sealed_key', lazy: true },
    keyHash: { type: 'blob', fieldName: 'key_hash', lazy: true },
    prefix: { type: 'text' },
    monthlySpendCap: { type: 'bigint', nullable: true, fieldName: 'monthly_spend_cap' },
    permissions: { type: 'text' },
    capabilities: { type: 'text[]', nullable: true },
    createdAt: { type: 'datetime', fieldName: 'created_at', onCreate: () => new Date() },
    revokedAt: { type: 'datetime', nullable: true, fieldName: 'revoked_at' },
  },
})

export const entities = [AccountSchema, ApiKeySchema]

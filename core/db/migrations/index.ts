// Numbered migrations, applied in order at boot. A capability that needs tables adds one here.
import { Migration0001Kernel } from './0001-kernel.ts'
import { Migration0002Memory } from './0002-memory.ts'
import { Migration0004WebhookSigning } from './0004-webhook-signing.ts'
import { Migration0005Billing } from './0005-billing.ts'
import { Migration0006OneSpendRule } from './0006-one-spend-rule.ts'

export const migrations = [
  { name: '0001-kernel', class: Migration0001Kernel },
  { name: '0002-memory', class: Migration0002Memory },
  { name: '0004-webhook-signing', class: Migration0004WebhookSigning },
  { name: '0005-billing', class: Migration0005Billing },
  { name: '0006-one-spend-rule', class: Migration0006OneSpendRule },
]

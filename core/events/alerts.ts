// Alert settings (C17): balance thresholds, key budget percents, email. Saving them arms each threshold against
// the account's available credits at that moment (one already under it counts as low, so it first needs a
// recovery), under the account row's lock so no charge slips between the reading and the arming.
import { Type, type Static } from '@sinclair/typebox'
import { audit, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'

export const AlertSettings = Type.Object(
  {
    balanceThresholds: Type.Array(Type.Integer({ minimum: 0, maximum: 1e12 }), {
      maxItems: 10,
      uniqueItems: true,
      description: 'balance.low when the available credits go below one of these',
    }),
    keyBudgetPercents: Type.Array(Type.Integer({ minimum: 1, maximum: 100 }), {
      maxItems: 10,
      uniqueItems: true,
      description: 'key.budget_threshold when a capped key’s month spend reaches this percent of its cap',
    }),
    email: Type.Boolean({ description: 'the account’s owners get a mail of each balance and budget alert too' }),
  },
  { additionalProperties: false },
)
export type AlertSettings = Static<typeof AlertSettings>
export const AlertInput = Type.Partial(AlertSettings, { additionalProperties: false, minProperties: 1 })

const sorted = (xs: number[]) => [...xs].sort((a, b) => b - a)

export async function getAlerts(db: Query, accountId: string): Promise<AlertSettings> {
  const [row] = await db.sql<{ balance_thresholds: string[] | null; key_budget_percents: number[] | null; alert_email: boolean }>(
    `select balance_thresholds, key_budget_percents, alert_email from accounts where id = ?`,
    [accountId],
  )
  return {
    balanceThresholds: (row?.balance_thresholds ?? []).map(Number),
    keyBudgetPercents: row?.key_budget_percents ?? [],
    email: row?.alert_email ?? false,
  }
}

export async function putAlerts(db: Database, accountId: string, input: Static<typeof AlertInput>, acting: Acting): Promise<AlertSettings> {
  return db.tx(async (q) => {
    const before = await getAlerts(q, accountId)
    const after: AlertSettings = {
      balanceThresholds: sorted(input.balanceThresholds ?? before.balanceThresholds),
      keyBudgetPercents: sorted(input.keyBudgetPercents ?? before.keyBudgetPercents),
      email: input.email ?? before.email,
    }
    // Empty lists are stored as null: the triggers' WHEN clauses then skip the account at no cost.
    const [row] = await q.sql<{ available: string }>(
      `update accounts set balance_thresholds = ?::bigint[], key_budget_percents = ?::int[], alert_email = ? where id = ?
       returning balance - reserved as available`,
      [
        after.balanceThresholds.length ? after.balanceThresholds : null,
        after.keyBudgetPercents.length ? after.keyBudgetPercents : null,
        after.email,
        accountId,
      ],
    )
    await q.sql(`delete from balance_alert_states where account_id = ? and not threshold = any(?::bigint[])`, [
      accountId,
      after.balanceThresholds,
    ])
    await q.sql(
      `insert into balance_alert_states (account_id, threshold, low) select ?, t, ? < t from unnest(?::bigint[]) t on conflict do nothing`,
      [accountId, row!.available, after.balanceThresholds],
    )
    await audit(q, acting, { accountId, action: 'alerts.updated', target: { type: 'account', id: accountId }, details: { before, after } })
    return after
  })
}

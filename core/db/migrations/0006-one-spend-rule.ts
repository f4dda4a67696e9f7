// One definition of the rule that decides whether a call may be held (C4 balance, C9 spend cap), used by
// reserve_call under its row locks and by the dry run's quote without them; and the injected clock reaches
// every time these functions decide or record (the idempotency window arrives as a parameter too): ledger and
// usage rows are dated by it, so GET /v1/usage's windows follow the same clock as holds and keys.
import { Migration } from '@mikro-orm/migrations'

export class Migration0006OneSpendRule extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- A key's spend in the month of p_now: the stored figure belongs to spend_month, and a new month starts at 0.
-- key_month_spend: its current text is core/wallet/sql/key_month_spend.sql

-- Why a call of p_price cannot be held now: 'insufficient' (available credits, C4) before 'spend_cap' (the
-- key's monthly cap counts its month's spend and its open holds, C9), or null when it can.
-- spend_refusal: its current text is core/wallet/sql/spend_refusal.sql

drop function if exists reserve_call(uuid, uuid, bigint, text, text, interval, text, bytea, timestamptz);

-- Places a hold of p_price after the idempotency claim (C5) and the spend rule, as C1 orders them.
-- Outcomes: ok, replay, in_use, reused, insufficient, spend_cap.
-- reserve_call: its current text is core/wallet/sql/reserve_call.sql

-- As in 0001, with the month rule (key_month_spend) and the ledger and usage rows dated by p_now (GET /v1/usage's days).
-- capture_hold: its current text is core/wallet/sql/capture_hold.sql

drop function if exists credit_account(uuid, text, bigint, text);

-- Every change of balance other than a charge: purchase, plan_grant, adjustment (C4), dated by p_now.
-- credit_account: its current text is core/wallet/sql/credit_account.sql
`)
  }
}

// The email_alert task: with alerts' `email` on, a balance or budget alert is also mailed to the account's owners
// and billing members (the account's own address when it has no members yet). Queued by emit_event
// (core/events/sql/) in the alert's transaction; a failed send is retried by graphile-worker (3 attempts).
import type { Services } from '../services.ts'
import type { EventBody } from './types.ts'

export const EMAIL_ALERT_TASK = 'email_alert'

/** The subject and text of an alert's mail. */
export function alertMail(event: Pick<EventBody, 'type' | 'data'>): { subject: string; text: string } {
  const d = event.data as Record<string, number | string>
  switch (event.type) {
    case 'balance.low':
      return {
        subject: `Credits below ${d.threshold}`,
        text: `The account's available credits went below ${d.threshold}: ${d.available} left. Buy a pack on the billing page to keep calls running.`,
      }
    case 'balance.recovered':
      return {
        subject: `Credits back above ${d.threshold}`,
        text: `The account's available credits are back at or above ${d.threshold}: ${d.available} available.`,
      }
    default:
      return {
        subject: `Key ${d.keyPrefix}… reached ${d.percent}% of its monthly cap`,
        text: `The key ${d.keyPrefix}… has spent ${d.monthSpend} of its ${d.cap} credits this month (${d.percent}%).`,
      }
  }
}

export function emailAlertTask(services: Services) {
  return async (payload: unknown): Promise<void> => {
    const { eventId } = payload as { eventId: string }
    const [event] = await services.db.sql<{ type: EventBody['type']; data: EventBody['data']; account_id: string }>(
      `select type, data, account_id from events where id = ?`,
      [eventId],
    )
    if (!event) return
    const recipients = await services.db.sql<{ email: string }>(
      `select email from members where account_id = ? and role in ('owner', 'billing')
       union select email from accounts a where a.id = ? and not exists (select from members m where m.account_id = a.id)`,
      [event.account_id, event.account_id],
    )
    const { subject, text } = alertMail(event)
    for (const { email } of recipients) await services.mailer.send(email, subject, text)
  }
}

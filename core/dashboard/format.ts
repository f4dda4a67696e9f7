// How the dashboard's pages write numbers, money, times and names (one spelling on every page).
import type { Plan } from '../accounts/accounts.ts'

export const credits = (n: number) => n.toLocaleString('en-US')
export const usd = (cents: number) =>
  `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: cents % 100 ? 2 : 0, maximumFractionDigits: 2 })}`
export const when = (d: string | Date) => new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC'
export const title = (s: string) => s[0]!.toUpperCase() + s.slice(1)
export const planName = (p: Plan) => (p === 'none' ? 'Pay as you go' : `${title(p)} plan`)

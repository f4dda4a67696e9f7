// The database's own failures, told apart from our bugs: contention (a deadlock or serialization failure,
// retried by the Database handle) and unavailability (the server down, restarting, or out of connections).
// Neither is a bug: the client is told 503 service_unavailable with Retry-After, never 500 internal_error.
import { ApiError } from '../errors.ts'

const CONTENTION = new Set(['40001', '40P01'])
// Class 08 (connection exception), admin shutdown / crash shutdown / cannot connect now, too many connections.
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])
// node-postgres reports a lost or unobtainable connection by message only.
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/

/** Seconds a client should wait before retrying when the database is out. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2

const codeOf = (e: unknown) => (e && typeof e === 'object' && 'code' in e ? String(e.code) : '')

/** A deadlock or serialization failure: the statement or transaction was rolled back whole and may run again. */
export const isContention = (e: unknown): boolean => CONTENTION.has(codeOf(e))

/** The database could not be reached or refused to serve (crashed, restarting, shutting down, full). */
export function isUnavailable(e: unknown): boolean {
  if (e instanceof ApiError) return e.code === 'service_unavailable'
  if (e instanceof AggregateError) return e.errors.some(isUnavailable)
  const code = codeOf(e)
  if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code)) return true
  return e instanceof Error && UNAVAILABLE_MESSAGE.test(e.message)
}

/** What the client is told about a database failure that is not a bug; null for anything else. */
export function serviceUnavailable(e: unknown): ApiError | null {
  if (e instanceof ApiError) return e.code === 'service_unavailable' ? e : null
  if (isContention(e))
    return new ApiError('service_unavailable', 'The service is busy; retry shortly. Nothing was charged.', undefined, {
      'Retry-After': '1',
    })
  if (isUnavailable(e))
    return new ApiError(
      'service_unavailable',
      'The database is unavailable; retry shortly, with the same Idempotency-Key a call is charged once.',
      undefined,
      {
        'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS),
      },
    )
  return null
}

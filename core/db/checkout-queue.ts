// Waiting for one of the pool's connections is not an outage. node-postgres times a checkout from the moment it
// queues, so under a burst a call that merely waited its turn longer than the connect timeout was answered as if
// the database were down. This queue admits at most `slots` checkouts to the pool at once, so the pool never
// queues and its timeout measures only the making of a connection (a real outage stays a fast 503); the wait in
// line is bounded by its own time and length, and what is beyond either is a 503 "busy" with Retry-After.
import { ApiError } from '../errors.ts'

export interface CheckoutLimits {
  /** Checkouts admitted to the pool at once: the pool's size. */
  slots: number
  /** Checkouts waiting in line beyond which a new one is refused at once. */
  maxWaiting: number
  /** How long one checkout may wait in line. */
  maxWaitMs: number
}

/** The wait in line bounded by DB_CHECKOUT_WAIT_MS (default 30 s) and DB_CHECKOUT_QUEUE (default 20,000). */
export function checkoutLimits(slots: number, env: NodeJS.ProcessEnv = process.env): CheckoutLimits {
  return {
    slots,
    maxWaiting: Number(env.DB_CHECKOUT_QUEUE ?? 20_000),
    maxWaitMs: Number(env.DB_CHECKOUT_WAIT_MS ?? 30_000),
  }
}

const busy = (why: string) =>
  new ApiError('service_unavailable', `The service is busy (${why}); retry shortly. Nothing was charged.`, undefined, {
    'Retry-After': '1',
  })

export function checkoutQueue({ slots, maxWaiting, maxWaitMs }: CheckoutLimits) {
  let inUse = 0
  const line: Array<{ admit: () => void }> = [] // first in, first admitted
  const next = () => {
    const waiter = line.shift()
    if (waiter) waiter.admit()
    else inUse--
  }
  const admitted = (): Promise<void> => {
    if (inUse < slots) {
      inUse++
      return Promise.resolve()
    }
    if (line.length >= maxWaiting) return Promise.reject(busy('too many requests are waiting for the database'))
    return new Promise((resolve, reject) => {
      const waiter = {
        admit: () => {
          clearTimeout(timer)
          resolve() // the slot passes from the leaver to this waiter: inUse is unchanged
        },
      }
      const timer = setTimeout(() => {
        line.splice(line.indexOf(waiter), 1)
        reject(busy(`no database connection came free within ${maxWaitMs} ms`))
      }, maxWaitMs)
      line.push(waiter)
    })
  }
  return {
    /** Runs fn holding one slot; the slot passes to the next in line when fn settles. */
    async run<T>(fn: () => Promise<T>): Promise<T> {
      await admitted()
      try {
        return await fn()
      } finally {
        next()
      }
    },
    waiting: () => line.length,
  }
}

// Synthetic async capabilities shared by the jobs tests and the separate worker process they kill.
import { ApiError } from '../../core/errors.ts'
import { testCapability } from './app.ts'

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/** `text` decides what the job does: "fail", "sleep:<ms>", or anything else to echo at once. */
export const jobCapability = testCapability({
  name: 'jobdoc',
  price: 7,
  async: true,
  ratePerMinute: 1000,
  handler: async (input: any, ctx) => {
    const text: string = input.text
    if (text === 'fail') throw new ApiError('inference_failed', 'The model provider failed.')
    if (text.startsWith('sleep:')) await sleep(Number(text.slice(6)), ctx.signal)
    return { echo: text }
  },
})

/** A synchronous capability of 2 credits that echoes: the charges of the alert tests (C17). */
export const twoCreditCapability = testCapability({ name: 'charge2', price: 2, ratePerMinute: 1000 })

// The capabilities as the tests that run every one of them see them: their manifests, and a request each can be
// called with in a test.
import type { CapabilityManifest } from '../../core/capability.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'
import type { TestApp } from './app.ts'
import { makeWav, TINY_PNG } from '../../devkit/fake-openai.ts'

export const loadManifests = (): Promise<CapabilityManifest[]> =>
  Promise.all(
    capabilityFolders(CAPABILITIES_ROOT).map(
      async (f) => (await import(`../../capabilities/${f}/manifest.ts`)).default as CapabilityManifest,
    ),
  )

/** The manifest's example, with inline media where the example names a URL nobody can fetch in a test. */
export function requestOf(m: CapabilityManifest): Record<string, unknown> {
  const body: Record<string, any> = structuredClone(m.example!.request)
  if (m.name === 'describe') return { ...body, imageUrl: undefined, image: { data: TINY_PNG.toString('base64'), mimeType: 'image/png' } }
  if (m.name === 'transcribe')
    return { ...body, audioUrl: undefined, audio: { data: makeWav(1).toString('base64'), mimeType: 'audio/wav' } }
  return body
}

export interface Outcome {
  status: number
  code?: string
  message: string
  /** the result of a served call (a job's result, with usage) */
  body?: any
}

/** One call to its end: a 202's job polled until it ends, reported as the status its synchronous call would have. */
export async function callToEnd(app: TestApp, name: string, key: string, body: unknown): Promise<Outcome> {
  let res = await app.call(`/v1/${name}`, { key, body })
  if (res.status === 202) {
    for (let i = 0; i < 2400 && !['succeeded', 'failed'].includes(res.body?.status); i++) {
      await new Promise((r) => setTimeout(r, 25))
      res = await app.call(`/v1/jobs/${res.body.jobId}`, { key })
    }
    if (res.body.status === 'succeeded') return { status: 200, message: '', body: res.body.result }
    // A failed job carries the code its synchronous call would have answered with (issue 14: errorCode).
    const code = res.body.errorCode
    return { status: code === 'unprocessable' ? 422 : 502, code, message: String(res.body.error) }
  }
  if (res.status === 200) return { status: 200, message: '', body: res.body }
  return { status: res.status, code: res.body?.error?.code, message: String(res.body?.error?.message ?? '') }
}

/** `fn(0..n-1)` with at most `limit` running at once, results in order. */
export async function pool<T>(n: number, limit: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) {
        const i = next++
        out[i] = await fn(i)
      }
    }),
  )
  return out
}

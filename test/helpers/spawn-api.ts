// Starts test/helpers/api-process.ts (an API server in its own process, killed with the test) on a test's database.
import type { ChildProcess } from 'node:child_process'
import { spawnReady } from './spawn-worker.ts'

interface Tap {
  teardown(fn: () => unknown): void
}

/** Resolves once the server listens, with its process and its base URL. */
export async function spawnApi(
  t: Tap,
  databaseUrl: string,
  opts: { capabilities?: string[]; fakeOpenAIUrl?: string; env?: Record<string, string> } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const { child, said } = await spawnReady(t, 'test/helpers/api-process.ts', {
    DATABASE_URL: databaseUrl,
    CAPABILITIES: (opts.capabilities ?? []).join(','),
    FAKE_OPENAI_URL: opts.fakeOpenAIUrl ?? '',
    ...opts.env,
  })
  return { child, url: said }
}

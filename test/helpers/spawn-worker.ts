// Starts test/helpers/worker-process.ts (a worker in its own process) or test/helpers/api-process.ts (the API without
// a worker) on a test's database, each killed with the test.
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'

interface Tap {
  teardown(fn: () => unknown): void
}

/** Runs `script` and resolves once it prints "ready <what>", with its process and <what>. */
async function spawnReady(
  t: Tap,
  script: string,
  databaseUrl: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; ready: string }> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, DATABASE_URL: databaseUrl, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.teardown(() => child.kill('SIGKILL'))
  for await (const line of createInterface({ input: child.stdout })) {
    const ready = /^ready (\S+)$/.exec(line)
    if (ready) return { child, ready: ready[1]! }
  }
  throw new Error(`${script} exited before it was ready`)
}

/** Resolves once the worker is polling, with its process and the id it registered under. */
export async function spawnWorker(
  t: Tap,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; id: string }> {
  const { child, ready } = await spawnReady(t, 'test/helpers/worker-process.ts', databaseUrl, env)
  return { child, id: ready }
}

/** Resolves once the API listens, with its process and its base URL. */
export async function spawnApi(
  t: Tap,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const { child, ready } = await spawnReady(t, 'test/helpers/api-process.ts', databaseUrl, env)
  return { child, url: ready }
}

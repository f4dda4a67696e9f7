// Starts test/helpers/worker-process.ts (a worker in its own process, killed with the test) on a test's database.
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'

interface Tap {
  teardown(fn: () => unknown): void
}

/** Resolves once the worker is polling, with its process and the id it registered under. */
export async function spawnWorker(
  t: Tap,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; id: string }> {
  const child = spawn(process.execPath, ['test/helpers/worker-process.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.teardown(() => child.kill('SIGKILL'))
  for await (const line of createInterface({ input: child.stdout })) {
    const ready = /^ready (\S+)$/.exec(line)
    if (ready) return { child, id: ready[1]! }
  }
  throw new Error('the worker process exited before it was ready')
}

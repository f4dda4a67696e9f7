// Starts test/helpers/worker-process.ts (a worker in its own process, killed with the test) on a test's database;
// spawnReady starts any such helper process.
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
  const { child, said } = await spawnReady(t, 'test/helpers/worker-process.ts', { DATABASE_URL: databaseUrl, ...env })
  return { child, id: said }
}

/** Runs `script` (Node strips its types), killed with the test; resolves once it prints "ready <word>", with that word. */
export async function spawnReady(t: Tap, script: string, env: Record<string, string>): Promise<{ child: ChildProcess; said: string }> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => child.kill('SIGKILL'))
  for await (const line of createInterface({ input: child.stdout })) {
    const ready = /^ready (\S+)$/.exec(line)
    if (ready) return { child, said: ready[1]! }
  }
  throw new Error(`${script} exited before it was ready`)
}

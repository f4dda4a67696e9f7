// What the bench scripts need of the processes they start: a free port, the first line a child prints that
// says it is ready (its stdout keeps draining after it), and the node flags a checkout's start script uses.
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { createInterface } from 'node:readline'

export async function firstLine(c: ChildProcess, match: (line: string) => boolean = () => true): Promise<string> {
  const lines = createInterface({ input: c.stdout! })
  for await (const line of lines) {
    if (!match(line)) continue
    lines.close()
    c.stdout!.resume() // keep draining: a full pipe would block the child
    return line
  }
  throw new Error('child exited before it was ready')
}

export async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1')
  await once(s, 'listening')
  const port = (s.address() as { port: number }).port
  s.close()
  return port
}

/** The node flags of a checkout's start script: `node <flags> core/server.ts …`, or the tsx loader for `tsx core/server.ts`. */
export function startFlags(dir: string, script: string): string[] {
  const { scripts } = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { scripts: Record<string, string> }
  const [runner, ...rest] = (scripts[script] ?? scripts.start!).split(/\s+/)
  const at = rest.indexOf('core/server.ts')
  const flags = at < 0 ? [] : rest.slice(0, at)
  return runner === 'tsx' ? ['--import', 'tsx', ...flags] : flags
}

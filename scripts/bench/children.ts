// What the bench scripts need of the processes they start: a free port, and the first line a child prints that
// says it is ready (its stdout keeps draining after it).
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
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

// The processes a bench starts, each its own so its CPU can be read from /proc: API and worker processes
// (`node core/server.ts`, as `npm run start:api` / `start:worker` run them), the fake model over HTTP and the load
// generator. `children` lists them all, for the bench's last `stop`.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { firstLine, freePort, startFlags } from './children.ts'
import { cpuMs } from './proc.ts'

export const children: ChildProcess[] = []

export function child(
  file: string,
  args: string[],
  env: Record<string, string> = {},
  more: { cwd?: string; nodeArgs?: string[] } = {},
): ChildProcess {
  const server = file === 'core/server.ts'
  // BENCH_PROFILE=<dir>: API and worker processes write a V8 CPU profile there when they exit.
  const profile = process.env.BENCH_PROFILE && server ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []
  // The servers run as `npm run start:api` / `start:worker` run them (Node strips the types itself, with the
  // script's node flags). Bench helpers keep the tsx loader.
  const loader = server ? (more.nodeArgs ?? startFlags(more.cwd ?? '.', 'start:worker')) : ['--import', 'tsx']
  const c = spawn(process.execPath, [...profile, ...loader, file, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    ...(more.cwd ? { cwd: more.cwd } : {}),
  })
  children.push(c)
  return c
}

export async function stop(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return // already gone (a signal leaves exitCode null)
  c.kill('SIGTERM')
  await once(c, 'exit')
}

/** The OpenAI-compatible fake model (scripts/bench/model.ts); `sample`: where it writes the first classify request. */
export async function startModel(delayMs = 0, sample?: string): Promise<{ proc: ChildProcess; baseURL: string }> {
  const c = child('scripts/bench/model.ts', [], {
    BENCH_MODEL_DELAY_MS: String(delayMs),
    ...(sample ? { BENCH_MODEL_SAMPLE: sample } : {}),
  })
  return { proc: c, baseURL: await firstLine(c) }
}

export interface LoadResult {
  requests: number
  rps: number
  p50: number
  p99: number
  max: number
  errors: number
  timeouts: number
  non2xx: number
  statuses: Record<string, number>
  /** Seconds from the first request to the last answer. */
  duration: number
}
/** One run of the load generator (scripts/bench/load.ts: autocannon options plus `keys`) in its own process. */
export async function runLoad(opts: Record<string, unknown>): Promise<LoadResult> {
  return JSON.parse(await firstLine(child('scripts/bench/load.ts', [JSON.stringify(opts)]))) as LoadResult
}

export interface Api {
  proc: ChildProcess
  url: string
}
/** API process start to listening, per start: the bench's boot figures. */
export const boots: { tsx: boolean; wallMs: number; cpuMs: number }[] = []

/** API and worker processes on this database; `extra` is more environment, `more.cwd` another checkout. */
export function benchServers(databaseUrl: string) {
  const apiEnv = (modelURL: string, extra: Record<string, string> = {}) => ({
    DATABASE_URL: databaseUrl,
    MAIL_TO_LOG: 'true', // no SMTP server here; sign-in emails are never sent by a bench
    OPENAI_BASE_URL: modelURL,
    OPENAI_API_KEY: 'bench',
    AI_WIRE_API: 'chat',
    RATE_LIMITS: JSON.stringify({ classify: 1e9, parse: 1e9 }),
    ...extra,
  })
  async function startApi(
    modelURL: string,
    extra: Record<string, string> = {},
    more: { cwd?: string; nodeArgs?: string[] } = {},
  ): Promise<Api> {
    const port = await freePort()
    const nodeArgs = more.nodeArgs ?? startFlags(more.cwd ?? '.', 'start:api')
    const t = performance.now()
    const c = child('core/server.ts', ['--api'], apiEnv(modelURL, { PORT: String(port), ...extra }), { ...more, nodeArgs })
    await firstLine(c, (l) => l.includes('"API listening'))
    boots.push({ tsx: nodeArgs.includes('tsx'), wallMs: performance.now() - t, cpuMs: cpuMs(c.pid!) })
    return { proc: c, url: `http://127.0.0.1:${port}` }
  }
  async function startWorkerProcess(
    modelURL: string,
    extra: Record<string, string> = {},
    more: { cwd?: string } = {},
  ): Promise<ChildProcess> {
    const c = child('core/server.ts', ['--worker'], apiEnv(modelURL, extra), more)
    await firstLine(c, (l) => l.includes('"Worker running"'))
    return c
  }
  return { startApi, startWorkerProcess }
}

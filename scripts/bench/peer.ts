// The yardstick of issue 32: Portkey's open-source gateway (a pure proxy: no auth of ours, no metering), pinned,
// installed by the bench itself into .bench/portkey (git-ignored, outside the production dependencies) and run in
// its own process against the same fake model as the live scenario, so its CPU per call can be read from /proc
// next to the API's and PostgreSQL's.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { firstLine, freePort } from './children.ts'

export const PORTKEY_VERSION = '1.15.2'
const DIR = resolve('.bench/portkey')
const PKG = `${DIR}/node_modules/@portkey-ai/gateway`

function installed(): string | null {
  const file = `${PKG}/package.json`
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : null
}

/** Installs the pinned gateway unless it is there already; its install script (patch-package) is not needed by the build. */
export function installPortkey(): void {
  if (installed() === PORTKEY_VERSION) return
  execFileSync(
    'npm',
    ['install', '--prefix', DIR, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', `@portkey-ai/gateway@${PORTKEY_VERSION}`],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  if (installed() !== PORTKEY_VERSION) throw new Error(`@portkey-ai/gateway@${PORTKEY_VERSION} did not install into ${DIR}`)
}

/** The gateway on a free port, started as its `start:node` script starts it; loopback allowed as a custom host. */
export async function startPortkey(spawnChild: (c: ChildProcess) => void): Promise<{ proc: ChildProcess; url: string }> {
  installPortkey()
  const port = await freePort()
  const c = spawn(process.execPath, [`${PKG}/build/start-server.js`, `--port=${port}`, '--headless'], {
    cwd: DIR,
    env: { ...process.env, NODE_ENV: 'production', TRUSTED_CUSTOM_HOSTS: '127.0.0.1,localhost' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  spawnChild(c)
  await firstLine(c, (l) => l.includes('Ready for connections'))
  return { proc: c, url: `http://127.0.0.1:${port}` }
}

/** Headers that make the gateway forward a chat completion to the fake model, as an OpenAI user would configure it. */
export const portkeyHeaders = (modelBaseURL: string) => ({
  authorization: 'Bearer bench',
  'content-type': 'application/json',
  'x-portkey-provider': 'openai',
  'x-portkey-custom-host': modelBaseURL,
})

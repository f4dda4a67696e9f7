// Headless Debian chromium for browser tests, started with the flags a sandboxed root machine needs.
// Each launch() gets a fresh profile: Playwright makes a new temporary --user-data-dir per launch and removes
// it on close (it refuses the flag in `args`). `npm test` installs chromium when it is missing
// (scripts/test.ts); a browser test that still finds none fails with the message below, never skips.
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM_PATH = '/usr/bin/chromium'
export const CHROMIUM_MISSING = `${CHROMIUM_PATH} is missing: install Debian's chromium (as root: apt-get update && apt-get install -y chromium), or run npm test, which does it.`

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(CHROMIUM_MISSING)
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  })
}

// Headless Debian chromium through playwright-core (no browser download). Playwright's launch() gives every
// browser a fresh temporary profile (its own --user-data-dir), removed on close.
import { chromium, type Browser } from 'playwright-core'

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  })
}

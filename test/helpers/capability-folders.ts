// The capability folders as the registry finds them (a folder with a manifest), so no test hard-codes how many
// there are: a capability author's 40th folder must pass the suite without editing a test.
import { existsSync, readdirSync } from 'node:fs'

const root = new URL('../../capabilities/', import.meta.url)

export const CAPABILITY_FOLDERS: readonly string[] = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(new URL(`${d.name}/manifest.ts`, root)))
  .map((d) => d.name)
  .sort()

// Where the capability folders are, read in one place: the registry, the capability migrations, the eval runner
// and the tests all list them here, each passing the root it means (a copied checkout, a test's temporary folder),
// so none depends on the working directory it was started from.
import { readdirSync } from 'node:fs'
import path from 'node:path'

/** This checkout's `capabilities/`. */
export const CAPABILITIES_ROOT = path.resolve(import.meta.dirname, '../capabilities')

/** The folder names under `root`, sorted: every subfolder is a capability (the registry refuses a bad one). */
export function capabilityFolders(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
}

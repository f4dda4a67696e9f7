// A capability owns its tables: capabilities/<name>/migrations/NNNN-<words>.ts, each a default-exported class
// extending Migration (from core/capability.ts). Found the way graphile-worker finds its own: folders read,
// names checked, and kernel and capability migrations applied in one order by number. A migration is recorded
// under its file name, so moving one between folders never runs it twice.
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Migration } from '@mikro-orm/migrations'
import { migrations as kernelMigrations } from './migrations/index.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../capability-folders.ts'

/** An entry of MikroORM's `migrationsList`. */
export interface NamedMigration {
  name: string
  class: new (...args: ConstructorParameters<typeof Migration>) => Migration
}

/** A migration file the kernel cannot use; the message names the file and what to change. */
export class MigrationError extends Error {
  override name = 'MigrationError'
}

const FILE_NAME = /^\d{4}-[a-z0-9]+(-[a-z0-9]+)*\.ts$/

/** The kernel's migrations and every capability folder's, in number order; throws MigrationError on a bad one. */
export async function allMigrations(capabilitiesDir = CAPABILITIES_ROOT): Promise<NamedMigration[]> {
  const found: Array<NamedMigration & { file: string }> = kernelMigrations.map((m) => ({ ...m, file: `core/db/migrations/${m.name}.ts` }))
  for (const folder of capabilityFolders(capabilitiesDir)) {
    const dir = path.join(capabilitiesDir, folder, 'migrations')
    const files = await readdir(dir).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? [] : Promise.reject(e)))
    for (const name of files.sort()) {
      const file = `capabilities/${folder}/migrations/${name}`
      if (!FILE_NAME.test(name))
        throw new MigrationError(`${file}: a migration is named NNNN-words.ts (four digits, lower-case words joined by "-").`)
      const { default: migration } = (await import(pathToFileURL(path.join(dir, name)).href)) as { default?: unknown }
      if (!isMigrationClass(migration))
        throw new MigrationError(`${file}: the default export must be a class that extends Migration (core/capability.ts).`)
      found.push({ name: name.slice(0, -'.ts'.length), class: migration, file })
    }
  }
  found.sort((a, b) => number(a.name).localeCompare(number(b.name))) // stable: on a clash the kernel's comes first
  for (let i = 1; i < found.length; i++) {
    const [before, here] = [found[i - 1]!, found[i]!]
    if (number(before.name) === number(here.name))
      throw new MigrationError(`${here.file}: number ${number(here.name)} is already taken by ${before.file}; take the next free one.`)
  }
  return found.map(({ name, class: migration }) => ({ name, class: migration }))
}

const number = (name: string) => name.slice(0, 4)

function isMigrationClass(value: unknown): value is NamedMigration['class'] {
  return typeof value === 'function' && value.prototype instanceof Migration
}

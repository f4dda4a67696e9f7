// Repeatable steps, as Flyway's repeatable migrations: SQL files that hold the current text of database functions
// (`create or replace function …`), applied after the numbered migrations whenever a file's text changed since it
// was last applied, and recorded in `schema_repeatables` (file, checksum). The numbered migrations keep the tables
// and the other DDL; a function's text is written once, in its file, and a change to it is a diff of that file.
// The folders are listed in ./migrations/index.ts (the wallet's functions: core/wallet/sql/, see its README; the
// result cache's claim: core/cache/sql/; the event log's functions and alert triggers: core/events/sql/).
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import { repeatableFolders } from './migrations/index.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

interface Step {
  /** The path from the repository's root: what the table records. */
  file: string
  text: string
  checksum: string
}

/** Every repeatable file, in the order they are applied: folder by folder, by file name. */
export function repeatableSteps(folders: readonly URL[] = repeatableFolders): Step[] {
  return folders.flatMap((folder) => {
    const dir = fileURLToPath(folder)
    return readdirSync(dir)
      .filter((name) => name.endsWith('.sql'))
      .sort()
      .map((name) => {
        const text = readFileSync(path.join(dir, name), 'utf8')
        return { file: path.relative(ROOT, path.join(dir, name)), text, checksum: createHash('sha256').update(text).digest('hex') }
      })
  })
}

const TABLE = `create table if not exists schema_repeatables (
  file text primary key,
  checksum text not null,
  applied_at timestamptz not null default now()
)`

/** The steps whose file changed (or is new) since it was applied to the database of `client`. */
export async function pendingRepeatables(client: pg.ClientBase, steps = repeatableSteps()): Promise<Step[]> {
  const { rows } = await client.query<{ exists: boolean }>(`select to_regclass('schema_repeatables') is not null as exists`)
  if (!rows[0]?.exists) return steps
  const applied = new Map(
    (await client.query<{ file: string; checksum: string }>('select file, checksum from schema_repeatables')).rows.map((r) => [
      r.file,
      r.checksum,
    ]),
  )
  return steps.filter((s) => applied.get(s.file) !== s.checksum)
}

/**
 * Applies the changed steps in one transaction (all or none) and records them; forgets files that are gone (a
 * function dropped by a numbered migration). The caller holds the migration lock. Function bodies are not
 * checked at creation (as pg_dump restores them), so one function may call another whose file comes later.
 */
export async function applyRepeatables(client: pg.ClientBase, steps = repeatableSteps()): Promise<string[]> {
  await client.query('begin')
  try {
    await client.query(TABLE)
    const pending = await pendingRepeatables(client, steps)
    await client.query('set local check_function_bodies = off')
    for (const step of pending) {
      await client.query(step.text).catch((e: Error) => {
        throw Object.assign(new Error(`${step.file}: ${e.message}`), { cause: e })
      })
      await client.query(
        `insert into schema_repeatables (file, checksum) values ($1, $2)
         on conflict (file) do update set checksum = excluded.checksum, applied_at = now()`,
        [step.file, step.checksum],
      )
    }
    await client.query('delete from schema_repeatables where file <> all($1)', [steps.map((s) => s.file)])
    await client.query('commit')
    return pending.map((s) => s.file)
  } catch (e) {
    await client.query('rollback').catch(() => {})
    throw e
  }
}

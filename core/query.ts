// The shape of a statement runner, in a leaf of its own: what observability wraps and every concern takes,
// without reaching into db/ for it (the database handle in db/database.ts is one).
import type pg from 'pg'

/** A result row as pg returns it (its columns typed by the caller where it matters). */
export type Row = pg.QueryResultRow

export interface Query {
  sql<T extends Row = Row>(text: string, params?: unknown[]): Promise<T[]>
}

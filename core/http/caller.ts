// Who is calling: the API key a request authenticated with, as every stage after authentication sees it.
// core/accounts/ mints the keys and caches them; authentication asks that cache through KeyLookup.
import type { KeyPermission } from '../roles.ts'

/** A live key spends credits; a test key is served the capability's example and never spends. */
export type KeyMode = 'live' | 'test'
export const KEY_MODES: readonly KeyMode[] = ['live', 'test']

export interface Caller {
  keyId: string
  accountId: string
  mode: KeyMode
  /** The key's scope (C18), read with the key, so checking it costs no query. */
  permissions: KeyPermission
  /** The capabilities it may call; null: every one. */
  capabilities: ReadonlySet<string> | null
  /**
   * The account's review settings when they are on (C21), read with the key so that a call with review off costs
   * no query; null: off. Absent where the caller was not read through the key cache: the review step reads them.
   */
  review?: ReviewSetting | null
}

/** An account's review settings that are on: the mode, its threshold, the endpoints they apply to (null: all). */
export interface ReviewSetting {
  mode: 'ungrounded' | 'below'
  threshold: number | null
  endpoints: readonly string[] | null
}

/** A review_settings row's columns as a ReviewSetting (PostgreSQL's numeric arrives as a string), or null when off. */
export function reviewSettingOf(row: {
  mode: string | null
  threshold: string | number | null
  endpoints: string[] | null
}): ReviewSetting | null {
  if (!row.mode || row.mode === 'off') return null
  return {
    mode: row.mode as ReviewSetting['mode'],
    threshold: row.threshold === null ? null : Number(row.threshold),
    endpoints: row.endpoints,
  }
}

/** What authentication asks of the key cache (core/accounts/key-cache.ts KeyCache): the caller a presented key is. */
export interface KeyLookup {
  lookup(key: string, client?: string): Promise<Caller | null>
}

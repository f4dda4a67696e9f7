// Every draft's Ajv class has the draft-07 one's methods (they share ajv/dist/core).
import type { Ajv } from 'ajv'

export type Draft = 'draft-07' | '2019-09' | '2020-12'
export declare const META: Record<Draft, string>
export declare function draftOf(schema: Record<string, unknown>): Draft | null
export declare function makeAjv(draft: Draft): Ajv

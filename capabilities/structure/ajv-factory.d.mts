import type AjvCore from 'ajv/dist/core.js'

export type Draft = 'draft-07' | '2019-09' | '2020-12'
export declare const META: Record<Draft, string>
export declare function draftOf(schema: Record<string, unknown>): Draft | null
export declare function makeAjv(draft: Draft): AjvCore
export declare function sharedAjv(draft: Draft): AjvCore

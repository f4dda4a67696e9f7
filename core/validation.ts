// One Ajv instance for the whole process; schemas are compiled once, at boot.
import { Ajv, type ErrorObject } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { ErrorDetail } from './errors.ts'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

export const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true })
addFormats(ajv)
// TypeBox marks schemas with symbols Ajv ignores; these keywords document, they do not validate.
ajv.addKeyword('x-example')

/** Ajv errors as C2 `details`: JSON-pointer paths to the offending value. */
export function formatErrors(errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  return (errors ?? []).slice(0, 20).map((e) => {
    let path = e.instancePath
    if (e.keyword === 'required') path += `/${(e.params as { missingProperty: string }).missingProperty}`
    if (e.keyword === 'additionalProperties') path += `/${(e.params as { additionalProperty: string }).additionalProperty}`
    return { path: path || '/', message: e.message ?? 'is invalid' }
  })
}

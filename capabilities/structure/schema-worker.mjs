// The thread where callers' schemas are compiled and values validated (schemas.ts runs it): Ajv turns a schema
// into code about 17 times its size (a 70 KB schema: a second or more), and a caller's `pattern` can backtrack for
// minutes, so neither may run on the server's event loop. Compiled schemas are kept, least recently used first
// out, up to KEEP_CHARS of schema text. For each task it reports "compiled" before validating, so that the deadline
// of a validation covers only the validation.
import { parentPort } from 'node:worker_threads'
import { makeAjv } from './ajv-factory.mjs'

const KEEP_CHARS = 2_000_000
const ajvs = new Map()
/** `${draft} ${text}` → {validate} or {errors, message}; a Map iterates in insertion order: the oldest first. */
const compiled = new Map()
let kept = 0

function compile(draft, text) {
  let ajv = ajvs.get(draft)
  if (!ajv) ajvs.set(draft, (ajv = makeAjv(draft)))
  const schema = JSON.parse(text)
  if (!ajv.validateSchema(schema)) return { errors: clone(ajv.errors) }
  try {
    return { validate: ajv.compile(schema) }
  } catch (e) {
    return { message: e.message }
  } finally {
    // The compiled function keeps working; Ajv's own cache would keep every caller's schema (it caches one before
    // compiling it, so also after a failed compile).
    ajv.removeSchema(schema)
  }
}

function entryFor(draft, text) {
  const key = `${draft} ${text}`
  let entry = compiled.get(key)
  if (entry) compiled.delete(key)
  else {
    entry = compile(draft, text)
    kept += key.length
  }
  compiled.set(key, entry)
  for (const [k] of compiled) {
    if (kept <= KEEP_CHARS || k === key) break
    compiled.delete(k)
    kept -= k.length
  }
  return entry
}

const clone = (errors) => JSON.parse(JSON.stringify(errors ?? []))

parentPort.on('message', ({ id, draft, text, validate, data }) => {
  const entry = entryFor(draft, text)
  parentPort.postMessage({ id, compiled: true })
  if (!entry.validate || !validate) return parentPort.postMessage({ id, errors: entry.errors ?? [], message: entry.message })
  const valid = entry.validate(data)
  parentPort.postMessage({ id, valid, errors: clone(entry.validate.errors) })
})
parentPort.postMessage({ ready: true })

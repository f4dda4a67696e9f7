// Validates one value against a caller's schema off the main thread: a `pattern` written by a caller can
// backtrack for minutes on the wrong string, and handler.ts terminates this worker when it runs out of time.
// It reports "ready" once the schema is compiled, so the deadline covers only the validation itself.
import { parentPort, workerData } from 'node:worker_threads'
import { makeAjv } from './ajv-factory.mjs'

const { schema, draft, data } = workerData
const validate = makeAjv(draft).compile(schema)
parentPort.postMessage({ ready: true })
const valid = validate(data)
parentPort.postMessage({ valid, errors: JSON.parse(JSON.stringify(validate.errors ?? [])) })

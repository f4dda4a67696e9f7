// A JSON request body, for capability calls and management routes alike: size (413), JSON syntax (400
// invalid_json), nesting depth (400 invalid_request naming the path, before any code walks the body recursively).
import bodyParser from 'koa-bodyparser'
import type { Context } from 'koa'
import { ApiError } from '../errors.ts'

/** Deepest nesting a request body may have; the root object is level 1. */
export const MAX_JSON_DEPTH = 64

/**
 * The JSON Pointer of the first value nested deeper than `max`, or null; iterative, so any depth is safe. Each node
 * keeps its parent and key, and the pointer is built only for the one too deep: a 10,000-item body is walked
 * without a string per object.
 */
export function tooDeep(value: unknown, max = MAX_JSON_DEPTH): string | null {
  if (!value || typeof value !== 'object') return null
  interface Node {
    value: object
    parent: Node | null
    key: string
    depth: number
  }
  const stack: Node[] = [{ value, parent: null, key: '', depth: 1 }]
  while (stack.length) {
    const node = stack.pop()!
    if (node.depth > max) return pointerOf(node)
    for (const [key, child] of Object.entries(node.value)) {
      if (child && typeof child === 'object') stack.push({ value: child as object, parent: node, key, depth: node.depth + 1 })
    }
  }
  return null
}

function pointerOf(node: { parent: typeof node | null; key: string }): string {
  const keys: string[] = []
  for (let n: typeof node | null = node; n?.parent; n = n.parent) keys.push(n.key.replace(/~/g, '~0').replace(/\//g, '~1'))
  return keys
    .reverse()
    .map((k) => `/${k}`)
    .join('')
}

export function makeBodyReader(limitBytes: number) {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: `${limitBytes}b`,
    strict: false,
    onerror: (err: Error & { status?: number }) => {
      if (err.status === 413) throw new ApiError('payload_too_large', `The body is larger than ${limitBytes} bytes.`)
      throw new ApiError('invalid_json', 'The body is not valid JSON.')
    },
  })
  return async (ctx: Context) => {
    await parse(ctx, async () => {})
    const deep = tooDeep(ctx.request.body)
    if (deep) {
      throw new ApiError('invalid_request', `The body is nested deeper than ${MAX_JSON_DEPTH} levels.`, [
        { path: deep.length > 200 ? `${deep.slice(0, 200)}…` : deep, message: `nested deeper than ${MAX_JSON_DEPTH} levels` },
      ])
    }
  }
}

/** The JSON body of a management route (not a capability), checked by `check`: 415 for another type, then the body limit. */
export function jsonBodyReader(limitBytes: number) {
  const readBody = makeBodyReader(limitBytes)
  return async <T>(ctx: Context, check: (b: unknown) => T): Promise<T> => {
    if (ctx.request.length && !ctx.is('application/json')) throw new ApiError('unsupported_media_type', 'Send JSON.')
    await readBody(ctx)
    return check(ctx.request.body ?? {})
  }
}

import { embed, embedMany, type EmbeddingModel } from 'ai'
import { ApiError, type CapabilityContext, type ErrorDetail } from '../../core/capability.ts'
import { MAX_METADATA_BYTES, type Input, type Output } from './schema.ts'

type Meta = Record<string, unknown>

/** Characters of content that are embedded: keeps any script under the embedding models' input limit (8k tokens). */
const EMBED_CHARS = 6000
/** Memories embedded per search when the embedding model changed or was switched on after they were stored. */
const BACKFILL_PER_SEARCH = 32

interface Embedder {
  model: EmbeddingModel
  name: string
}

/** The embedding model when one is configured on a configured provider; otherwise memory runs on full-text. */
function embedder(ctx: CapabilityContext): Embedder | null {
  if (!ctx.ai.provider.configured) return null
  const model = ctx.ai.provider.embedding()
  if (!model) return null
  const name = typeof model === 'string' ? model : `${model.provider}:${model.modelId}`
  return { model, name }
}

const embedOne = (ctx: CapabilityContext, e: Embedder, text: string) =>
  ctx.ai.run(
    'embedding',
    async (abortSignal) => (await embed({ model: e.model, value: text.slice(0, EMBED_CHARS), abortSignal, maxRetries: 0 })).embedding,
  )

/**
 * Stage 4 (manifest `check`): PostgreSQL text and jsonb cannot hold U+0000, so it is refused with the schema
 * rather than failing in the database; metadata is bounded as JSON. The first problem only.
 */
export function check(input: Input): ErrorDetail[] {
  for (const field of ['content', 'query', 'metadata', 'filter'] as const) {
    if (hasNul(input[field])) return [{ path: `/${field}`, message: 'contains U+0000' }]
  }
  const size = input.metadata === undefined ? 0 : Buffer.byteLength(JSON.stringify(input.metadata))
  if (size > MAX_METADATA_BYTES)
    return [{ path: '/metadata', message: `metadata is ${size} bytes as JSON; at most ${MAX_METADATA_BYTES} are accepted` }]
  return []
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const namespace = input.namespace ?? 'default'
  switch (input.op) {
    case 'store':
      return store(input, namespace, ctx)
    case 'search':
      return search(input, namespace, ctx)
    case 'forget':
      return forget(input, namespace, ctx)
  }
}

function hasNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\0')
  if (Array.isArray(v)) return v.some(hasNul)
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => k.includes('\0') || hasNul(x))
  return false
}

async function store(input: Input, namespace: string, ctx: CapabilityContext): Promise<Output> {
  const content = input.content!
  const metadata = input.metadata ?? {}
  const e = embedder(ctx)
  // Embed before writing: a failed embedding stores nothing (and the call is free).
  const vector = e ? await embedOne(ctx, e, content) : null
  const [row] = await ctx.db.sql<{ id: string }>(
    `insert into memories (account_id, namespace, content, metadata, embedding, embedding_model, created_at)
     values (?, ?, ?, ?::jsonb, ?::real[], ?, ?) returning id`,
    [ctx.accountId, namespace, content, JSON.stringify(metadata), vector && pgArray(vector), e ? e.name : null, ctx.now()],
  )
  return { op: 'store', namespace, id: row!.id }
}

interface Row {
  id: string
  content: string
  metadata: Meta
  created_at: Date | string
  score: number | string
}

async function search(input: Input, namespace: string, ctx: CapabilityContext): Promise<Output> {
  const limit = input.limit ?? 10
  const minScore = input.minScore ?? 0
  const filter = JSON.stringify(input.filter ?? {})
  const e = embedder(ctx)
  let rows: Row[]
  if (e) {
    await backfill(ctx, e, namespace)
    const vector = await embedOne(ctx, e, input.query!)
    // Cosine similarity in SQL over real[] (no pgvector needed): a scan of the caller's namespace only.
    rows = await ctx.db.sql<Row>(
      `select m.id, m.content, m.metadata, m.created_at, greatest(least(s.score, 1), 0) as score
         from memories m
         cross join lateral (
           select case when sum(a::float8 * a) > 0 and sum(b::float8 * b) > 0
                       then sum(a::float8 * b) / sqrt(sum(a::float8 * a) * sum(b::float8 * b)) else 0 end as score
             from unnest(m.embedding, ?::real[]) as t(a, b)
         ) s
        where m.account_id = ? and m.namespace = ? and m.embedding_model = ? and cardinality(m.embedding) = ?
          and m.metadata @> ?::jsonb and s.score > ?
        order by s.score desc, m.created_at desc, m.id
        limit ?`,
      [pgArray(vector), ctx.accountId, namespace, e.name, vector.length, filter, minScore, limit],
    )
  } else {
    // Full-text: any query word may match (OR of the lexemes), ranked by ts_rank normalised to 0..1 (rank/(rank+1)).
    rows = await ctx.db.sql<Row>(
      `with q as (select replace(plainto_tsquery('english', ?)::text, ' & ', ' | ')::tsquery as tq)
       select m.id, m.content, m.metadata, m.created_at, ts_rank(m.tsv, q.tq, 32) as score
         from memories m, q
        where m.account_id = ? and m.namespace = ? and numnode(q.tq) > 0 and m.tsv @@ q.tq
          and m.metadata @> ?::jsonb and ts_rank(m.tsv, q.tq, 32) > ?
        order by score desc, m.created_at desc, m.id
        limit ?`,
      [input.query!, ctx.accountId, namespace, filter, minScore, limit],
    )
  }
  return {
    op: 'search',
    namespace,
    results: rows.map((r) => ({
      id: r.id,
      content: r.content,
      score: Math.round(Math.min(1, Math.max(0, Number(r.score))) * 10_000) / 10_000,
      metadata: r.metadata ?? {},
      createdAt: new Date(r.created_at).toISOString(),
    })),
    ranking: e ? 'embedding' : 'fulltext',
  }
}

/** A real[] literal: MikroORM expands array bindings into lists, so vectors travel as text. */
function pgArray(v: number[]): string {
  if (!v.every(Number.isFinite)) throw new ApiError('inference_failed', 'The embedding provider returned an invalid vector.')
  return `{${v.join(',')}}`
}

/** Memories stored before this embedding model was configured (or under another model) get vectors, a batch per search. */
async function backfill(ctx: CapabilityContext, e: Embedder, namespace: string): Promise<void> {
  const stale = await ctx.db.sql<{ id: string; content: string }>(
    `select id, content from memories
      where account_id = ? and namespace = ? and (embedding is null or embedding_model is distinct from ?)
      order by created_at desc limit ?`,
    [ctx.accountId, namespace, e.name, BACKFILL_PER_SEARCH],
  )
  if (stale.length === 0) return
  const { embeddings } = await ctx.ai.run('embedding', (abortSignal) =>
    embedMany({ model: e.model, values: stale.map((r) => r.content.slice(0, EMBED_CHARS)), abortSignal, maxRetries: 0 }),
  )
  const rows = stale.map((r, i) => ({ id: r.id, e: embeddings[i] }))
  await ctx.db.sql(
    `update memories m set embedding = x.e, embedding_model = ?
       from jsonb_to_recordset(?::jsonb) as x(id uuid, e real[])
      where m.id = x.id and m.account_id = ? and m.namespace = ?`,
    [e.name, JSON.stringify(rows), ctx.accountId, namespace],
  )
}

async function forget(input: Input, namespace: string, ctx: CapabilityContext): Promise<Output> {
  // Another account's id, or an id in another namespace, deletes nothing: deleted 0, not an error, so the
  // answer never tells whether such a memory exists.
  const [row] = input.id
    ? await ctx.db.sql<{ n: string }>(
        `with d as (delete from memories where id = ? and account_id = ? and namespace = ? returning 1) select count(*) as n from d`,
        [input.id, ctx.accountId, namespace],
      )
    : await ctx.db.sql<{ n: string }>(
        `with d as (delete from memories where account_id = ? and namespace = ? returning 1) select count(*) as n from d`,
        [ctx.accountId, namespace],
      )
  return { op: 'forget', namespace, ...(input.id ? { id: input.id } : {}), deleted: Number(row!.n) }
}

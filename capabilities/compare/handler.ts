import { Type, type Static } from '@sinclair/typebox'
import type { FilePart, ImagePart, TextPart } from 'ai'
import {
  ApiError,
  MText,
  StringEnum,
  oneLine,
  type CapabilityContext,
  type DocumentInput,
  type ResolvedDocument,
} from '../../core/capability.ts'
import type { Input, Output } from './schema.ts'

// Asked of the model: everything but the count. Every key present, no length bounds (strict structured output);
// the enums are enforced here (Ajv, one retry) and again by the response schema.
const Level = StringEnum(['low', 'medium', 'high'] as const)
const ModelCompare = Type.Object(
  {
    changes: Type.Array(
      Type.Object(
        {
          section: Type.String({ pattern: '\\S' }),
          change: StringEnum(['added', 'removed', 'modified'] as const),
          before: MText,
          after: MText,
          materiality: Level,
          note: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    summary: Type.String(),
    riskNotes: Type.Array(Type.String()),
  },
  { additionalProperties: false },
)
type ModelCompare = Static<typeof ModelCompare>

const SYSTEM = [
  'You compare two versions of a document: A is the earlier version, B the later one. Report what changed from A to B.',
  'Return JSON: {"changes": [{section, change, before, after, materiality, note}], "summary", "riskNotes"}:',
  '- one entry per changed clause or passage, in the order of document B (removed passages where they stood in A);',
  '- section: the heading or number of the clause, as printed (e.g. "3. Fees and Payment");',
  '- change: "added" (only in B), "removed" (only in A) or "modified";',
  '- before: the shortest exact quote from A that shows the difference, null when added;',
  '- after: the shortest exact quote from B that shows the difference, null when removed;',
  '- materiality: "high" for money, dates, deadlines, liability, termination, obligations or rights; "medium" for other changes of meaning; "low" for wording without a change of meaning;',
  '- note: one sentence on what the change means for the reader;',
  '- summary: two or three sentences on the overall effect of the changes;',
  '- riskNotes: short sentences on risks the changes introduce ([] when none).',
  "Ignore differences of layout, whitespace, page breaks and the document title's version label. Quote verbatim; never paraphrase in before/after.",
].join('\n')

/** Resolves one side, with error paths and messages that say which side (ResolveDeps.at is not reachable from ctx). */
async function resolveSide(ctx: CapabilityContext, input: DocumentInput, side: 'a' | 'b'): Promise<ResolvedDocument> {
  try {
    return await ctx.documents.resolve(input)
  } catch (e) {
    if (!(e instanceof ApiError) || (e.code !== 'unprocessable' && e.code !== 'invalid_request')) throw e
    const details = (e.details ?? [{ path: '', message: e.message }]).map((d) => ({
      path: `/${side}${d.path === '/' ? '' : d.path}`,
      message: d.message,
    }))
    throw new ApiError(e.code, `${side}: ${e.message}`, details, e.headers)
  }
}

/** Lower case, one kind of quote and dash, whitespace collapsed: what "the same text" means for quotes. */
function normalizeText(s: string): string {
  return s
    .toLowerCase()
    .replace(/[\u2018\u2019\u201a\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
}

/** Whitespace collapsed, nothing else: "the same text" for the no-change shortcut, where case is a change. */
const sameText = (a: string, b: string) => oneLine(a) === oneLine(b)

/** Is `quote` found in `text` (normalised)? Elided quotes ("… within 30 days … notice") count piece by piece. */
export function quoted(quote: string, normalizedText: string): boolean {
  const pieces = normalizeText(quote)
    .split(/\s*(?:\.\.\.|…|\[\.\.\.\])\s*/)
    .map((p) => p.replace(/^["']|["']$/g, '').trim())
    .filter((p) => p !== '')
  return pieces.length > 0 && pieces.every((p) => normalizedText.includes(p))
}

function parts(ctx: CapabilityContext, doc: ResolvedDocument): Array<TextPart | ImagePart | FilePart> {
  const p = ctx.documents.parts(doc)
  return typeof p === 'string' ? [{ type: 'text', text: p }] : p
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const [a, b] = await Promise.all([resolveSide(ctx, input.a, 'a'), resolveSide(ctx, input.b, 'b')])
  const textA = a.hasTextLayer ? normalizeText(a.text) : null
  const textB = b.hasTextLayer ? normalizeText(b.text) : null

  // Code knows the answer when both texts are the same (whitespace aside; a change of case or of a quote mark is
  // an edit): no model call, no invented "changes".
  if (a.hasTextLayer && b.hasTextLayer && sameText(a.text, b.text)) {
    return { changes: [], changeCount: 0, summary: 'The two documents have the same text; nothing changed.', riskNotes: [], warnings: [] }
  }

  const answer = await ctx.ai.object<ModelCompare>({
    system: SYSTEM,
    content: [
      { type: 'text', text: '=== Document A (earlier version) ===' },
      ...parts(ctx, a),
      { type: 'text', text: '=== Document B (later version) ===' },
      ...parts(ctx, b),
    ],
    schema: ModelCompare,
  })

  const warnings: string[] = []
  const changes = answer.changes.map((c, i) => {
    const at = `changes[${i}]`
    let before = c.before?.trim() || null
    let after = c.after?.trim() || null
    // The change type decides which side exists; a quote on the missing side contradicts it.
    if (c.change === 'added' && before !== null) {
      warnings.push(`${at}: an "added" change cannot have a "before" text; it was set to null.`)
      before = null
    }
    if (c.change === 'removed' && after !== null) {
      warnings.push(`${at}: a "removed" change cannot have an "after" text; it was set to null.`)
      after = null
    }
    if (c.change === 'added' && after === null) warnings.push(`${at}: an "added" change without the added text.`)
    if (c.change === 'removed' && before === null) warnings.push(`${at}: a "removed" change without the removed text.`)
    if (c.change === 'modified' && (before === null || after === null))
      warnings.push(`${at}: a "modified" change needs both "before" and "after".`)
    if (c.change === 'modified' && before !== null && after !== null && sameText(before, after)) {
      warnings.push(`${at}: "before" and "after" are the same text.`)
    }
    // Quotes must come from their document (checked where the document has a text layer).
    if (before !== null && textA !== null && !quoted(before, textA)) warnings.push(`${at}: the "before" text is not found in document a.`)
    if (after !== null && textB !== null && !quoted(after, textB)) warnings.push(`${at}: the "after" text is not found in document b.`)
    return { section: c.section.trim(), change: c.change, before, after, materiality: c.materiality, note: c.note.trim() }
  })

  return {
    changes,
    changeCount: changes.length,
    summary: answer.summary.trim(),
    riskNotes: answer.riskNotes.map((r) => r.trim()).filter((r) => r !== ''),
    warnings,
  }
}

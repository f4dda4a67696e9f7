import { Type, type Static } from '@sinclair/typebox'
import {
  answerDocument,
  ApiError,
  type CapabilityContext,
  comparableText,
  MSupport,
  MSupports,
  MText,
  normalizeDate,
  Nullable,
  StringEnum,
  SUPPORT_RULES,
} from '../../core/capability.ts'
import { GROUNDED, type Input, type Output } from './schema.ts'

// Asked of the model: exactly the response fields, every key present (null when absent), no length bounds
// (strict structured output). Enums, booleans and "at least one party" are checked here (Ajv, one retry).
const Text = Type.String({ pattern: '\\S' })
// `enum` rather than a union of `const`s: the plainest form for providers' structured-output decoders.
const Severity = StringEnum(['low', 'medium', 'high'] as const)
const ModelContract = Type.Object(
  {
    contractType: Text,
    parties: Type.Array(Type.Object({ name: Text, role: Text, ...MSupport }, { additionalProperties: false }), { minItems: 1 }),
    effectiveDate: MText,
    term: MText,
    renewal: Nullable(Type.Object({ autoRenews: Type.Boolean(), noticePeriod: MText }, { additionalProperties: false })),
    governingLaw: MText,
    obligations: Type.Array(Type.String()),
    riskFlags: Type.Array(
      Type.Object({ clause: Text, severity: Severity, reason: Type.String(), ...MSupport }, { additionalProperties: false }),
    ),
    support: MSupports(GROUNDED),
  },
  { additionalProperties: false },
)
type ModelContract = Static<typeof ModelContract>

const SYSTEM = [
  'You review a contract and extract its key terms. Use only what the contract says; never invent terms.',
  'Return JSON with exactly these fields (null when the contract does not say):',
  '- contractType: the kind of contract in lower case (e.g. "services agreement", "non-disclosure agreement", "lease");',
  '- parties: every party, [{name, role}], name as written, role in lower case as the contract defines it (e.g. "provider", "client");',
  '- effectiveDate: the date the contract takes effect, as YYYY-MM-DD;',
  '- term: the duration as stated (e.g. "24 months from 2024-01-01");',
  '- renewal: null when the contract says nothing about renewal, else {autoRenews: true|false, noticePeriod: notice needed to stop renewal, or null};',
  '- governingLaw: the governing law or jurisdiction (e.g. "New York");',
  '- obligations: the main obligations, one short sentence each, naming the party that owes it;',
  '- riskFlags: clauses that carry risk for a party, [{clause (heading or number), severity "low"|"medium"|"high", reason (one sentence)}];',
  '  high: uncapped or one-sided liability, unilateral termination or price change, automatic renewal with long notice, broad indemnities.',
  `- support: one entry for each of ${GROUNDED.join(', ')} that has a value; each party carries its own quote (where it is named), each risk flag the quote of the clause it is about, with page and confidence.`,
  SUPPORT_RULES,
].join('\n')

const norm = comparableText
const clean = (s: string | null) => s?.trim() || null

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const { answer, doc, evidence } = await answerDocument<ModelContract>(ctx, input, { system: SYSTEM, schema: ModelContract })
  const warnings: string[] = []
  const text = doc.hasTextLayer ? norm(doc.text) : null

  // Parties: each once (by name), and named in the contract where code can read it.
  const seen = new Set<string>()
  const parties = answer.parties
    .map((p) => ({ name: p.name.trim(), role: p.role.trim().toLowerCase(), ...evidence.ground([p.name], p) }))
    .filter((p) => !seen.has(norm(p.name)) && seen.add(norm(p.name)))
  if (parties.length === 0) throw new ApiError('inference_failed', 'The model named no party of the contract. Nothing was charged.')
  if (text !== null) {
    parties.forEach((p, i) => {
      if (!text.includes(norm(p.name))) warnings.push(`parties[${i}]: "${p.name.slice(0, 100)}" is not found in the contract text.`)
    })
  }

  const effectiveDate = normalizeDate(answer.effectiveDate)
  if (clean(answer.effectiveDate) !== null && effectiveDate === null) {
    warnings.push(`effectiveDate: "${answer.effectiveDate!.slice(0, 60)}" is not a date; returned null.`)
  }

  const obligationsSeen = new Set<string>()
  const obligations = answer.obligations
    .map((o) => o.trim())
    .filter((o) => o !== '' && !obligationsSeen.has(norm(o)) && obligationsSeen.add(norm(o)))

  const result = {
    contractType: answer.contractType.trim().toLowerCase(),
    parties,
    effectiveDate,
    term: clean(answer.term),
    renewal: answer.renewal ? { autoRenews: answer.renewal.autoRenews, noticePeriod: clean(answer.renewal.noticePeriod) } : null,
    governingLaw: clean(answer.governingLaw),
    obligations,
    // A risk flag is a judgement about a clause: grounded when the clause it quotes is in the contract.
    riskFlags: answer.riskFlags.map((r) => ({
      clause: r.clause.trim(),
      severity: r.severity,
      reason: r.reason.trim(),
      ...evidence.ground([], r),
    })),
  }
  const values = { ...answer, 'renewal.noticePeriod': answer.renewal?.noticePeriod }
  const grounding = evidence.fields(
    Object.fromEntries(GROUNDED.map((f) => [f, values[f]])) as Record<(typeof GROUNDED)[number], unknown>,
    answer.support,
    result,
  )
  return { ...result, grounding, warnings }
}

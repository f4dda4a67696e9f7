import { Type, type Static } from '@sinclair/typebox'
import {
  answerDocument,
  type CapabilityContext,
  contradicted,
  MSupport,
  MSupports,
  MText,
  normalizeDate,
  Nullable,
  oneLine,
  SUPPORT_RULES,
} from '../../core/capability.ts'
import { GROUNDED, Precision, type Input, type Output } from './schema.ts'

// What the model is asked for: exactly the response fields, every key present (null when absent), no length
// bounds (strict structured-output friendly). Code turns it into the published shape.
const ModelResume = Type.Object(
  {
    name: Type.String({ pattern: '\\S' }),
    email: MText,
    phone: MText,
    location: MText,
    headline: MText,
    summary: MText,
    yearsExperience: Nullable(Type.Number()),
    skills: Type.Array(Type.String()),
    experience: Type.Array(
      Type.Object(
        {
          title: Type.String(),
          company: Type.String(),
          startDate: MText,
          endDate: MText,
          current: Type.Boolean(),
          highlights: Type.Array(Type.String()),
          ...MSupport,
        },
        { additionalProperties: false },
      ),
    ),
    education: Type.Array(
      Type.Object({ degree: MText, school: Type.String(), year: Nullable(Type.Integer()), ...MSupport }, { additionalProperties: false }),
    ),
    links: Type.Object({ linkedin: MText, github: MText, website: MText }, { additionalProperties: false }),
    support: MSupports(GROUNDED),
  },
  { additionalProperties: false },
)
type ModelResume = Static<typeof ModelResume>

const SYSTEM = [
  'You extract a candidate profile from a resume (CV). Use only what the document states; never invent data.',
  'Return JSON with exactly these fields (null when the resume does not state it):',
  "- name: the candidate's full name; email; phone; location; headline (their title or one-line pitch); summary (the resume's own summary, verbatim or nearly);",
  '- yearsExperience: years of professional experience if the resume states it, else null;',
  '- skills: skills as listed, each once;',
  '- experience: every position, most recent first as in the resume: title, company, startDate, endDate,',
  '  current (true when the resume says the position is ongoing, e.g. "present"; then endDate is null), highlights (the bullet points, verbatim);',
  '  write dates with exactly the precision the resume gives: YYYY-MM-DD, YYYY-MM or YYYY;',
  '- education: degree, school, year (graduation year as a number);',
  '- links: linkedin, github, website (personal site or portfolio) as written.',
  `- support: one entry for each of ${GROUNDED.join(', ')} that has a value; each experience and education entry carries its own quote (the line naming the title and company, or the school), page and confidence.`,
  SUPPORT_RULES,
].join('\n')

type Precision = 'day' | 'month' | 'year'
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const ONGOING = /^(present|current|currently|now|today|ongoing|to date|till date|heute|aujourd'hui)$/i

const pad = (n: number) => String(n).padStart(2, '0')
const yearOk = (y: number) => y >= 1900 && y <= 2100

/**
 * A resume date → `YYYY-MM-DD` (capabilities.md) plus the precision the resume actually gave. Month-only
 * dates map to the 1st of the month and year-only dates to January 1st; the precision field says so.
 */
function resumeDate(value: unknown): { date: string | null; precision: Precision | null; ongoing: boolean; unreadable: boolean } {
  const none = { date: null, precision: null, ongoing: false, unreadable: false }
  if (typeof value !== 'string' || value.trim() === '') return none
  const s = oneLine(value)
  if (ONGOING.test(s)) return { ...none, ongoing: true }
  const day = normalizeDate(s)
  if (day) return { date: day, precision: 'day', ongoing: false, unreadable: false }
  const month = (y: number, m: number) =>
    yearOk(y) && m >= 1 && m <= 12 ? { date: `${y}-${pad(m)}-01`, precision: 'month' as const, ongoing: false, unreadable: false } : null
  let m = /^(\d{4})[-/.](\d{1,2})$/.exec(s)
  if (m) return month(+m[1]!, +m[2]!) ?? { ...none, unreadable: true }
  m = /^(\d{1,2})[-/.](\d{4})$/.exec(s)
  if (m) return month(+m[2]!, +m[1]!) ?? { ...none, unreadable: true }
  m = /^([A-Za-z]{3,9})\.?,? (\d{4})$/.exec(s)
  if (m) {
    const idx = MONTHS.indexOf(m[1]!.slice(0, 3).toLowerCase())
    if (idx >= 0) return month(+m[2]!, idx + 1) ?? { ...none, unreadable: true }
    if (/^(spring|summer|fall|autumn|winter)$/i.test(m[1]!) && yearOk(+m[2]!))
      return { date: `${m[2]}-01-01`, precision: 'year', ongoing: false, unreadable: false }
  }
  m = /^(\d{4})$/.exec(s)
  if (m && yearOk(+m[1]!)) return { date: `${m[1]}-01-01`, precision: 'year', ongoing: false, unreadable: false }
  return { ...none, unreadable: true }
}

const clean = (s: string | null | undefined): string | null => {
  const v = (s ?? '').trim()
  return v === '' ? null : v
}

const EMAIL = /^[^\s@<>()]+@[^\s@<>()]+\.[^\s@<>()]{2,}$/

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const { answer, evidence: text } = await answerDocument<ModelResume>(ctx, input, { system: SYSTEM, schema: ModelResume })
  const warnings: string[] = []

  let email = clean(answer.email)?.replace(/^mailto:/i, '') ?? null
  if (email && !EMAIL.test(email)) {
    warnings.push(`email: "${email.slice(0, 100)}" is not an email address; returned null.`)
    email = null
  }
  let phone = clean(answer.phone)
  if (phone && (phone.match(/\d/g)?.length ?? 0) < 6) {
    warnings.push(`phone: "${phone.slice(0, 100)}" has too few digits to be a phone number; returned null.`)
    phone = null
  }
  let yearsExperience = answer.yearsExperience
  if (yearsExperience !== null && !(yearsExperience >= 0 && yearsExperience <= 80)) {
    warnings.push(`yearsExperience: ${yearsExperience} is not a plausible number of years; returned null.`)
    yearsExperience = null
  }

  // Skills: trimmed, each once (case-insensitive), in the resume's order.
  const seen = new Set<string>()
  const skills = answer.skills.map((s) => s.trim()).filter((s) => s !== '' && !seen.has(s.toLowerCase()) && seen.add(s.toLowerCase()))

  const experience = answer.experience.map((e, i) => {
    const start = resumeDate(e.startDate)
    const end = resumeDate(e.endDate)
    if (start.unreadable) warnings.push(`experience[${i}].startDate: "${String(e.startDate).slice(0, 60)}" is not a date; returned null.`)
    if (end.unreadable) warnings.push(`experience[${i}].endDate: "${String(e.endDate).slice(0, 60)}" is not a date; returned null.`)
    if (start.ongoing)
      warnings.push(`experience[${i}].startDate: "${String(e.startDate).slice(0, 60)}" is not a start date; returned null.`)
    const current = e.current || end.ongoing
    if (current && end.date) warnings.push(`experience[${i}]: marked current but has an end date ${end.date}.`)
    // Compare at the coarser of the two precisions: "2020" to "2020-06" is fine.
    let grounding = text.ground([e.title, e.company], e)
    if (start.date && end.date) {
      const len =
        start.precision === 'year' || end.precision === 'year' ? 4 : start.precision === 'month' || end.precision === 'month' ? 7 : 10
      if (start.date.slice(0, len) > end.date.slice(0, len)) {
        warnings.push(`experience[${i}]: startDate ${start.date} is after endDate ${end.date}.`)
        grounding = contradicted(grounding)
      }
    }
    return {
      title: e.title.trim(),
      company: e.company.trim(),
      startDate: start.date,
      endDate: end.date,
      startDatePrecision: start.precision,
      endDatePrecision: end.precision,
      current,
      highlights: e.highlights.map((h) => h.trim().replace(/^[-•*]\s*/, '')).filter((h) => h !== ''),
      ...grounding,
    }
  })

  const education = answer.education.map((e, i) => {
    let year = e.year
    if (year !== null && !yearOk(year)) {
      warnings.push(`education[${i}].year: ${year} is not a plausible year; returned null.`)
      year = null
    }
    return { degree: clean(e.degree), school: e.school.trim(), year, ...text.ground([e.school], e) }
  })

  const link = (key: 'linkedin' | 'github' | 'website', host?: RegExp) => {
    const v = clean(answer.links[key])
    if (v && host && !host.test(v)) {
      warnings.push(`links.${key}: "${v.slice(0, 100)}" is not a ${key} address; returned null.`)
      return null
    }
    return v
  }

  const result = {
    name: answer.name.trim(),
    email,
    phone,
    location: clean(answer.location),
    headline: clean(answer.headline),
    summary: clean(answer.summary),
    yearsExperience,
    skills,
    experience,
    education,
    links: { linkedin: link('linkedin', /linkedin\./i), github: link('github', /github\./i), website: link('website') },
  }
  const values = {
    ...answer,
    'links.linkedin': answer.links.linkedin,
    'links.github': answer.links.github,
    'links.website': answer.links.website,
  }
  const grounding = text.fields(
    Object.fromEntries(GROUNDED.map((f) => [f, values[f]])) as Record<(typeof GROUNDED)[number], unknown>,
    answer.support,
    result,
  )
  return { ...result, grounding, warnings }
}

// Eval fixtures for /v1/resume (scripts/eval.ts): known data from test/fixtures/documents.ts, in the response shape.
import { readFileSync } from 'node:fs'
import { resume } from '../../test/fixtures/documents.ts'

const file = (name: string) => ({
  file: { data: readFileSync(new URL(`../../test/fixtures/pdf/${name}.pdf`, import.meta.url)).toString('base64'), mimeType: 'application/pdf' },
})

const expected = {
  name: resume.name,
  email: resume.email,
  phone: resume.phone,
  location: resume.location,
  headline: resume.headline,
  yearsExperience: resume.yearsExperience,
  skills: resume.skills,
  // Month-precision resume dates are published as the 1st of the month (README).
  experience: resume.experience.map((e) => ({
    title: e.title,
    company: e.company,
    startDate: `${e.startDate}-01`,
    endDate: e.endDate ? `${e.endDate}-01` : null,
    startDatePrecision: 'month',
    endDatePrecision: e.endDate ? 'month' : null,
    current: e.endDate === null,
  })),
  education: resume.education,
  links: resume.links,
}

export const evalCases = [
  { name: 'resume-pdf', request: file('resume'), expected },
  { name: 'resume-text', request: { text: resume.toText() }, expected },
]

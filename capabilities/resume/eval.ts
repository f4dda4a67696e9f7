// Eval fixtures for /v1/resume (scripts/eval.ts): known data from devkit/fixtures/documents.ts, in the response shape.
import { pdf, type GroundingCase } from '../../devkit/eval-kit.ts'
import { resume } from '../../devkit/fixtures/documents.ts'
import { GROUNDED } from './schema.ts'
import { supported } from '../../devkit/evidence.ts'

const file = (name: string) => ({ file: pdf(name) })

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
  {
    // Another layout: European dates (month/year), a name with diacritics, skills inline.
    name: 'resume-eu-layout',
    request: {
      text: 'ANA KOVAČ\nana.kovac@example.hr · Zagreb\n\nIskustvo / Experience\n03/2019 – danas: Senior Data Engineer, Infobip\n09/2015 – 02/2019: Data Analyst, Rimac Automobili\n\nEducation: MSc Computer Science, University of Zagreb, 2015\nSkills: Python, SQL, Kafka',
    },
    expected: {
      name: 'Ana Kovač',
      email: 'ana.kovac@example.hr',
      experience: [
        { company: 'Infobip', startDate: '2019-03-01', current: true },
        { company: 'Rimac Automobili', startDate: '2015-09-01', endDate: '2019-02-01' },
      ],
    },
  },
]
export const align = { experience: 'company' }

/** Issue 29: the resume as text, answered right with every value quoted (test/evidence-eval.test.ts). */
export const groundingCase: GroundingCase = {
  request: { text: resume.toText() },
  answer: supported(
    {
      name: resume.name,
      email: resume.email,
      phone: resume.phone,
      location: resume.location,
      headline: resume.headline,
      summary: resume.summary,
      yearsExperience: resume.yearsExperience,
      skills: resume.skills,
      experience: resume.experience.map((e) => ({ ...e, current: false })),
      education: resume.education,
      links: resume.links,
    },
    resume.toPages(),
    { experience: ['title', 'company'], education: ['school'] },
    GROUNDED,
  ),
}

// Eval cases for /v1/normalize (scripts/eval.ts, devkit/eval-kit.ts).
import { count, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'phones-countries',
    request: {
      records: [
        { name: 'ACME gmbh', phone: '030 1234567', country: 'germany' },
        { name: 'Globex Ltd.', phone: '+44 20 7946 0958', country: 'UK' },
      ],
      instructions: 'Phones in E.164, countries as ISO 3166 alpha-2.',
    },
    expected: { records: [{ country: 'DE' }, { country: 'GB' }] },
    checks: { 'same number of records': count('records[]', 2) },
  },
  {
    name: 'dates',
    request: {
      records: [{ date: '03/04/2024' }, { date: '14.03.2024' }],
      instructions: 'Dates as ISO 8601 (YYYY-MM-DD); the source writes day first.',
    },
    expected: { records: [{ date: '2024-04-03' }, { date: '2024-03-14' }] },
  },
  {
    name: 'amounts',
    request: {
      records: [{ amount: '1.234,50 €' }, { amount: '$99' }],
      instructions: 'Amounts as numbers in their currency; add a currency field with the ISO 4217 code.',
    },
    expected: {
      records: [
        { amount: 1234.5, currency: 'EUR' },
        { amount: 99, currency: 'USD' },
      ],
    },
  },
]

import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'statement',
  summary:
    'Bank or card statement: account, period, balances, normalized transactions; each value with the evidence code found in the document (evidence, grounded, confidence)',
  price: 12,
  size: { unit: 'page', included: 20, perUnit: 1 },
  async: true,
  cache: true,
  ratePerMinute: 60,
  model: 'vision',
  chunking: 'merge',
  request: Request,
  response: Result,
  example: {
    request: {
      text: 'First Harbor Bank\nAccount ****6621, 2024-04-01 to 2024-04-30\nOpening balance 2450.00\n2024-04-02 Rent payment | 1200.00 | | 1250.00\n2024-04-05 Payroll deposit | | 3150.75 | 4400.75\nClosing balance 4400.75',
    },
    response: {
      institution: 'First Harbor Bank',
      accountNumberMasked: '****6621',
      periodStart: '2024-04-01',
      periodEnd: '2024-04-30',
      openingBalance: 2450,
      closingBalance: 4400.75,
      transactions: [
        {
          date: '2024-04-02',
          description: 'Rent payment',
          amount: 1200,
          direction: 'debit',
          balance: 1250,
          evidence: { page: 1, quote: '2024-04-02 Rent payment | 1200.00 | | 1250.00' },
          grounded: true,
          confidence: 0.95,
        },
        {
          date: '2024-04-05',
          description: 'Payroll deposit',
          amount: 3150.75,
          direction: 'credit',
          balance: 4400.75,
          evidence: { page: 1, quote: '2024-04-05 Payroll deposit | | 3150.75 | 4400.75' },
          grounded: true,
          confidence: 0.95,
        },
      ],
      transactionCount: 2,
      grounding: {
        institution: { evidence: { page: 1, quote: 'First Harbor Bank' }, grounded: true, confidence: 0.97 },
        periodStart: { evidence: { page: 1, quote: '2024-04-01 to 2024-04-30' }, grounded: true, confidence: 0.95 },
        periodEnd: { evidence: { page: 1, quote: '2024-04-01 to 2024-04-30' }, grounded: true, confidence: 0.95 },
        openingBalance: { evidence: { page: 1, quote: 'Opening balance 2450.00' }, grounded: true, confidence: 0.96 },
        closingBalance: { evidence: { page: 1, quote: 'Closing balance 4400.75' }, grounded: true, confidence: 0.96 },
      },
      warnings: [],
    },
  },
  handler,
})

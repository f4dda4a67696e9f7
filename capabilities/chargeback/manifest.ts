import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'chargeback',
  summary: 'Representment narrative, evidence checklist, reason code, win-likelihood',
  price: 15,
  async: false,
  ratePerMinute: 30,
  model: 'text',
  request: Request,
  response: Result,
  example: {
    request: {
      reason: 'Cardholder says the order never arrived.',
      transaction: { amount: 249.99, currency: 'USD', date: '2026-02-03', descriptor: 'ACME*OUTDOOR' },
      evidence: ['UPS tracking 1Z999AA10123456784 shows delivered 2026-02-06', 'Order confirmation email'],
      network: 'visa',
    },
    response: {
      reasonCategory: 'consumer_dispute',
      reasonCode: '13.1',
      reasonDescription: 'Merchandise/Services Not Received',
      network: 'visa',
      recommendedAction: 'fight',
      narrative:
        'The cardholder ordered on 2026-02-03 and the goods were delivered to the billing address on 2026-02-06 (UPS 1Z999AA10123456784). We ask that the dispute be reversed.',
      evidenceChecklist: [
        {
          item: 'Proof of delivery (carrier tracking)',
          have: true,
          matchedEvidence: [{ evidenceIndex: 0, quote: 'shows delivered 2026-02-06' }],
        },
        { item: 'Signed delivery confirmation', have: false },
      ],
      winLikelihood: 0.7,
      rationale: 'Carrier proof of delivery to the billing address usually wins a 13.1; a signature would make it stronger.',
    },
  },
  handler,
})

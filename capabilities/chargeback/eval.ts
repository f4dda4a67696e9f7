// Eval cases for /v1/chargeback (scripts/eval.ts, devkit/eval-kit.ts).
import { between, within, type EvalCase } from '../../devkit/eval-kit.ts'

const transaction = { amount: 249.99, currency: 'USD', date: '2026-02-03', descriptor: 'ACME*OUTDOOR' }
export const evalCases: EvalCase[] = [
  {
    name: 'not-received-with-tracking',
    request: {
      reason: 'Cardholder says the order never arrived.',
      transaction,
      evidence: ['UPS tracking 1Z999AA10123456784 shows delivered 2026-02-06', 'Order confirmation email'],
      network: 'visa',
    },
    expected: { reasonCode: '13.1', reasonCategory: 'consumer_dispute', recommendedAction: 'fight' },
    checks: { 'likelihood in 0..1': between('winLikelihood', 0, 1) },
  },
  {
    name: 'never-delivered-is-no-proof',
    request: {
      reason: 'Merchandise not received',
      transaction,
      evidence: ['Customer says the package was never delivered'],
      network: 'visa',
    },
    checks: { 'no proof of delivery claimed': within('evidenceChecklist[].have', [false]) },
  },
  {
    name: 'fraud-mastercard',
    request: {
      reason: 'Mastercard 4837: cardholder does not recognise the transaction',
      transaction,
      evidence: ['AVS: Y, CVV: M', '3-D Secure authenticated'],
      network: 'mastercard',
    },
    expected: { reasonCode: '4837', reasonCategory: 'fraud' },
  },
]

// Bench child process: the OpenAI-compatible fake model over HTTP, answering classify and parse prompts
// (BENCH_MODEL_DELAY_MS delays every answer). Prints its base URL on the first line of stdout.
// BENCH_MODEL_SAMPLE=<file>: the body of the first classify request is written there, so the peer gateway can
// be sent exactly what the API sends the model.
import { writeFileSync } from 'node:fs'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'

const classify = { label: 'billing', confidence: 0.9, rationale: 'A duplicate charge.' }
const parse = {
  docType: 'invoice',
  party: null,
  documentNumber: null,
  date: null,
  totalAmount: null,
  currency: null,
  lineItems: [],
  fields: [],
}
let sample = process.env.BENCH_MODEL_SAMPLE
const fake = await startFakeOpenAI({
  delayMs: Number(process.env.BENCH_MODEL_DELAY_MS ?? 0),
  text: (req) => {
    if (`${req.system}\n${req.prompt}`.includes('You parse one business document')) return parse
    if (sample && req.api === 'chat') {
      writeFileSync(sample, JSON.stringify(req.body))
      sample = undefined
    }
    return classify
  },
})
setInterval(() => (fake.requests.length = 0), 1000).unref() // the fake records requests for tests; not here
console.log(fake.baseURL)

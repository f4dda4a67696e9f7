// Bench child process: the OpenAI-compatible fake model over HTTP, answering classify and parse prompts
// (BENCH_MODEL_DELAY_MS delays every answer). Prints its base URL on the first line of stdout.
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'

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
const fake = await startFakeOpenAI({
  delayMs: Number(process.env.BENCH_MODEL_DELAY_MS ?? 0),
  text: (req) => (`${req.system}\n${req.prompt}`.includes('You parse one business document') ? parse : classify),
})
setInterval(() => (fake.requests.length = 0), 1000).unref() // the fake records requests for tests; not here
console.log(fake.baseURL)

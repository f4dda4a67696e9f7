// Simulation of one hot account under C concurrent callers: today's design (every hold and every capture takes
// the account's row lock until its durable commit) against a lease design (an API node leases a block of the
// account's credits with one row-locked statement and spends it locally, each call writing one durable charge
// row that takes no account lock). Discrete events, virtual time; also checks that the lease design never
// spends a credit it does not hold and that every credit ends either charged or back on the account.
// Issue 32: the same on 1, 2 and 4 API nodes (each node one core of API CPU per call, its callers its own;
// PostgreSQL's cores shared), leases held per node and key (BENCHMARKS.md, "The hot account past one row").
// `npx tsx scripts/bench/hot-account-sim.ts [statement ms] [commit ms] [model ms] [API CPU ms] [PostgreSQL cores]`
const STATEMENT_MS = Number(process.argv[2] ?? 0.35) // CPU of a money statement inside PostgreSQL
const COMMIT_MS = Number(process.argv[3] ?? 0.6) // durable commit (WAL flush); the row lock is held through it
const MODEL_MS = Number(process.argv[4] ?? 2) // the model's answer, no lock held, no CPU of ours
const API_MS = Number(process.argv[5] ?? 1) // the API node's own CPU per call (one core per node)
const CORES = Number(process.argv[6] ?? 2) // PostgreSQL's statements share the machine's cores
const CALLERS = 50 // per node
const CALLS = 20_000
const PRICE = 2
let NODES = 1

/** Resources granted in the order requests arrive (the loop below advances callers in time order). */
class Server {
  private free: number[]
  constructor(n: number) {
    this.free = Array.from({ length: n }, () => 0)
  }
  /** Starts `ms` of work at or after `now`; returns when it is done. */
  use(now: number, ms: number): number {
    let k = 0
    for (let j = 1; j < this.free.length; j++) if (this.free[j]! < this.free[k]!) k = j
    const done = Math.max(now, this.free[k]!) + ms
    this.free[k] = done
    return done
  }
}

type Step = (now: number) => number // one stage of a call: returns when it is done
/** Runs CALLS calls on CALLERS callers per node, always advancing the caller whose next stage starts first. */
function run(stages: (node: number) => Step[]): number {
  const callers = CALLERS * NODES
  const at = Array.from({ length: callers }, () => 0)
  const queue = Array.from({ length: callers }, () => [] as Step[])
  let started = 0
  let end = 0
  for (;;) {
    let c = -1
    for (let j = 0; j < callers; j++) if ((queue[j]!.length || started < CALLS) && (c < 0 || at[j]! < at[c]!)) c = j
    if (c < 0) break
    if (!queue[c]!.length) {
      started++
      queue[c] = stages(c % NODES)
    }
    at[c] = queue[c]!.shift()!(at[c]!)
    end = Math.max(end, at[c]!)
  }
  return CALLS / (end / 1000)
}

// A locked, durable statement: CPU on a core while holding the row lock, then the commit, still holding it.
function lockedStatement(lock: Server, cpu: Server): Step {
  return (now) => {
    const done = lock.use(now, STATEMENT_MS + COMMIT_MS) // FIFO on the row
    cpu.use(done - COMMIT_MS - STATEMENT_MS, STATEMENT_MS)
    return done
  }
}

// The hold since issue 18: committed asynchronously, so the row lock is released after the statement.
function unflushedStatement(lock: Server, cpu: Server): Step {
  return (now) => {
    const done = lock.use(now, STATEMENT_MS)
    cpu.use(done - STATEMENT_MS, STATEMENT_MS)
    return done
  }
}

/** The node's own CPU for a call (auth, body, model request and answer, response): one core per node. */
const apiWork =
  (nodes: Server[], node: number): Step =>
  (now) =>
    nodes[node]!.use(now, API_MS)
const apiNodes = () => Array.from({ length: NODES }, () => new Server(1))

function durableHold(): number {
  const lock = new Server(1)
  const cpu = new Server(CORES)
  const api = apiNodes()
  return run((n) => [apiWork(api, n), lockedStatement(lock, cpu), (now) => now + MODEL_MS, lockedStatement(lock, cpu)])
}

function today(): number {
  const lock = new Server(1)
  const cpu = new Server(CORES)
  const api = apiNodes()
  return run((n) => [apiWork(api, n), unflushedStatement(lock, cpu), (now) => now + MODEL_MS, lockedStatement(lock, cpu)])
}

function leased(block: number): { rate: number; exact: boolean } {
  const lock = new Server(1) // the account's row (and its key's): taken by refills only
  const cpu = new Server(CORES)
  const api = apiNodes()
  const initial = 1_000_000_000
  let balance = initial
  const lease = Array.from({ length: NODES }, () => 0) // credits each node leased and has not spent
  const refillDone = Array.from({ length: NODES }, () => 0)
  let charged = 0
  let overspent = false
  const rate = run((n) => [
    apiWork(api, n),
    (now) => {
      if (lease[n]! < PRICE) {
        // One row-locked, durable statement moves a block from the account (and the key's cap) to the node's lease row.
        refillDone[n] = lockedStatement(lock, cpu)(Math.max(now, refillDone[n]!))
        balance -= block
        lease[n]! += block
      }
      lease[n]! -= PRICE // the hold is local memory: the lease row already holds these credits durably
      if (lease[n]! < 0) overspent = true
      return Math.max(now, refillDone[n]!)
    },
    (now) => now + MODEL_MS,
    (now) => {
      charged += PRICE
      return cpu.use(now, STATEMENT_MS) + COMMIT_MS // a durable charge row, no account lock: commits overlap
    },
  ])
  balance += lease.reduce((a, b) => a + b, 0) // the nodes return what they did not spend
  return { rate, exact: !overspent && balance + charged === initial }
}

const f = (n: number) => Math.round(n).toLocaleString('en-US')
console.log(
  `one account, ${CALLERS} callers per node, statement ${STATEMENT_MS} ms, durable commit ${COMMIT_MS} ms, model ${MODEL_MS} ms, API CPU ${API_MS} ms per call on each node, PostgreSQL ${CORES} cores`,
)
const sizes = [1, 2, 4]
console.log(`| design | ${sizes.map((n) => `${n} node${n > 1 ? 's' : ''}`).join(' | ')} |\n|---|${sizes.map(() => '---:').join('|')}|`)
const row = (label: string, design: () => number) =>
  console.log(
    `| ${label} | ${sizes
      .map((n) => {
        NODES = n
        return f(design())
      })
      .join(' | ')} |`,
  )
row('before issue 18: hold and capture each take the row lock through their commit', durableHold)
row("today: the hold's lock ends with its statement (asynchronous commit), the capture's with its commit", today)
for (const block of [20, 200, 2000]) {
  let exact = true
  row(`lease of ${block} credits per refill (${block / PRICE} calls)`, () => {
    const r = leased(block)
    exact &&= r.exact
    return r.rate
  })
  if (!exact) console.log(`| lease of ${block}: NOT EXACT | | | |`)
}

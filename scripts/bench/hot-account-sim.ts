// Simulation of one hot account under C concurrent callers: today's design (every hold and every capture takes
// the account's row lock until its durable commit) against a lease design (an API node leases a block of the
// account's credits with one row-locked statement and spends it locally, each call writing one durable charge
// row that takes no account lock). Discrete events, virtual time; also checks that the lease design never
// spends a credit it does not hold and that every credit ends either charged or back on the account.
// `npx tsx scripts/bench/hot-account-sim.ts [statement ms] [commit ms] [model ms]`
const STATEMENT_MS = Number(process.argv[2] ?? 0.35) // CPU of a money statement inside PostgreSQL
const COMMIT_MS = Number(process.argv[3] ?? 0.6) // durable commit (WAL flush); the row lock is held through it
const MODEL_MS = Number(process.argv[4] ?? 2) // the model and the API's own work, no lock held
const CALLERS = 50
const CALLS = 20_000
const PRICE = 2

const CORES = 2 // PostgreSQL's statements share the machine's cores

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
/** Runs CALLS calls on CALLERS callers, always advancing the caller whose next stage starts first. */
function run(stages: (call: number) => Step[]): number {
  const at = Array.from({ length: CALLERS }, () => 0)
  const queue = Array.from({ length: CALLERS }, () => [] as Step[])
  let started = 0
  let end = 0
  for (;;) {
    let c = -1
    for (let j = 0; j < CALLERS; j++) if ((queue[j]!.length || started < CALLS) && (c < 0 || at[j]! < at[c]!)) c = j
    if (c < 0) break
    if (!queue[c]!.length) queue[c] = stages(started++)
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

function durableHold(): number {
  const lock = new Server(1)
  const cpu = new Server(CORES)
  return run(() => [lockedStatement(lock, cpu), (now) => now + MODEL_MS, lockedStatement(lock, cpu)])
}

function today(): number {
  const lock = new Server(1)
  const cpu = new Server(CORES)
  return run(() => [unflushedStatement(lock, cpu), (now) => now + MODEL_MS, lockedStatement(lock, cpu)])
}

function leased(block: number): { rate: number; exact: boolean } {
  const lock = new Server(1)
  const cpu = new Server(CORES)
  const initial = 1_000_000_000
  let balance = initial
  let lease = 0 // credits this node leased and has not spent
  let charged = 0
  let refillDone = 0
  let overspent = false
  const rate = run(() => [
    (now) => {
      if (lease < PRICE) {
        // One row-locked, durable statement moves a block from the account to the node's lease row.
        refillDone = lockedStatement(lock, cpu)(Math.max(now, refillDone))
        balance -= block
        lease += block
      }
      lease -= PRICE // the hold is local memory: the lease row already holds these credits durably
      if (lease < 0) overspent = true
      return Math.max(now, refillDone)
    },
    (now) => now + MODEL_MS,
    (now) => {
      charged += PRICE
      return cpu.use(now, STATEMENT_MS) + COMMIT_MS // a durable charge row, no account lock: commits overlap
    },
  ])
  balance += lease // the node returns what it did not spend
  return { rate, exact: !overspent && balance + charged === initial }
}

const f = (n: number) => Math.round(n).toLocaleString('en-US')
console.log(`one account, ${CALLERS} callers, statement ${STATEMENT_MS} ms, durable commit ${COMMIT_MS} ms, model ${MODEL_MS} ms`)
console.log(`| design | calls/s |\n|---|---:|`)
console.log(`| before issue 18: hold and capture each take the row lock through their commit | ${f(durableHold())} |`)
console.log(`| today: the hold's lock ends with its statement (asynchronous commit), the capture's with its commit | ${f(today())} |`)
for (const block of [20, 200, 2000]) {
  const r = leased(block)
  console.log(`| lease of ${block} credits per refill (${block / PRICE} calls) | ${f(r.rate)} ${r.exact ? '' : '(NOT EXACT)'} |`)
}

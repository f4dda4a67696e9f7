// Groups calls into rounds of database work: calls made in the same tick, or while every round is in flight,
// run as one group (one statement or one transaction, so one durable commit for many jobs). A few groups run at
// once, so a slow group does not hold back the jobs behind it. A group that fails is retried item by item, so
// an error belongs to the job that caused it.

export interface BatchLimits {
  /** Items per group. */
  maxItems: number
  /** Groups in flight at once (each holds one database connection). */
  maxGroups: number
}

export function batched<In, Out>(
  run: (items: In[]) => Promise<Out[]>,
  { maxItems, maxGroups }: BatchLimits = { maxItems: 64, maxGroups: 4 },
): (item: In) => Promise<Out> {
  type Waiting = { item: In; resolve: (o: Out) => void; reject: (e: unknown) => void }
  let waiting: Waiting[] = []
  let inFlight = 0
  let scheduled = false
  const runGroup = async (group: Waiting[]) => {
    try {
      const out = await run(group.map((w) => w.item))
      group.forEach((w, i) => w.resolve(out[i]!))
    } catch (e) {
      if (group.length === 1) return group[0]!.reject(e)
      for (const w of group)
        await run([w.item]).then(
          ([o]) => w.resolve(o!),
          (e1: unknown) => w.reject(e1),
        )
    }
  }
  const start = () => {
    scheduled = false
    while (waiting.length && inFlight < maxGroups) {
      const group = waiting.slice(0, maxItems)
      waiting = waiting.slice(maxItems)
      inFlight++
      void runGroup(group).finally(() => {
        inFlight--
        schedule()
      })
    }
  }
  // The next tick, not now: the calls of this tick join the group.
  const schedule = () => {
    if (scheduled || !waiting.length) return
    scheduled = true
    setImmediate(start)
  }
  return (item) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ item, resolve, reject })
      schedule()
    })
}

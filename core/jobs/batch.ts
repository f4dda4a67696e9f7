// Groups calls made while the previous group is in flight into one database round: a worker with many jobs in
// flight then claims and ends them with one statement or transaction (one durable commit) instead of one each.
// One group at a time: with four in flight (measured, BENCHMARKS.md) groups were smaller, and jobs cost more
// transactions and more CPU for no more throughput. A group that fails is retried item by item, so an error
// belongs to the job that caused it.

/** `run` (one database round for a group of items) as a call per item: one group at a time, `max` items at most. */
export function batched<In, Out>(run: (items: In[]) => Promise<Out[]>, max = 64): (item: In) => Promise<Out> {
  let waiting: { item: In; resolve: (o: Out) => void; reject: (e: unknown) => void }[] = []
  let busy = false
  const drain = async () => {
    busy = true
    while (waiting.length) {
      const group = waiting.slice(0, max)
      waiting = waiting.slice(max)
      try {
        const out = await run(group.map((w) => w.item))
        group.forEach((w, i) => w.resolve(out[i]!))
      } catch (e) {
        if (group.length === 1) group[0]!.reject(e)
        else
          for (const w of group)
            await run([w.item]).then(
              ([o]) => w.resolve(o!),
              (e1: unknown) => w.reject(e1),
            )
      }
    }
    busy = false
  }
  return (item) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ item, resolve, reject })
      // Calls of the same tick join the group: the first one waits for the rest before starting it.
      if (!busy) {
        busy = true
        setImmediate(() => void drain())
      }
    })
}

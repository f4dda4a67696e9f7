// CPU time per process from /proc, for the bench scripts: a process's own, and PostgreSQL's as the sum over the
// postmaster and its children (backends come and go, so per pid).
import { readdirSync, readFileSync } from 'node:fs'

const TICK_MS = 1000 / 100 // USER_HZ is 100 on Linux

/** utime + stime of a process in ms; 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) * TICK_MS
  } catch {
    return 0
  }
}

export function ppidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
}

/** CPU of every PostgreSQL process: the postmaster and its children, per pid. */
export function pgCpu(postmaster: number): Map<number, number> {
  const out = new Map<number, number>([[postmaster, cpuMs(postmaster)]])
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      if (ppidOf(Number(d)) === postmaster) out.set(Number(d), cpuMs(Number(d)))
    } catch {
      // the process ended between readdir and the read
    }
  }
  return out
}

/** PostgreSQL's CPU ms between two pgCpu readings. */
export const pgDelta = (a: Map<number, number>, b: Map<number, number>) => [...b].reduce((s, [pid, ms]) => s + ms - (a.get(pid) ?? 0), 0)

export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
}

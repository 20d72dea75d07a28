/**
 * CPU time of a server process tree from /proc (Linux): how the harness measures workerd, whose
 * Worker cannot read its own process's CPU (server-stats.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime: USER_HZ, 100 on every Linux port that matters. */
const TICKS_PER_SECOND = 100;

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): { comm: string; rest: string[] } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  return { comm: text.slice(open + 1, close), rest: text.slice(close + 2).trim().split(' ') };
}

/** utime + stime of a process in µs (fields 14 and 15 of proc(5); `rest` starts at field 3). */
export function procCpuMicros(pid: number): number | null {
  const f = statFields(pid);
  if (!f) return null;
  return ((Number(f.rest[11]) + Number(f.rest[12])) * 1_000_000) / TICKS_PER_SECOND;
}

/** Every live descendant of `root` with its command name (children by the ppid field, field 4). */
export function descendants(root: number): { pid: number; comm: string }[] {
  const parent = new Map<number, number>();
  const comm = new Map<number, string>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const f = statFields(pid);
    if (!f) continue;
    parent.set(pid, Number(f.rest[1]));
    comm.set(pid, f.comm);
  }
  const out: { pid: number; comm: string }[] = [];
  const walk = (p: number) => {
    for (const [pid, pp] of parent) if (pp === p) (out.push({ pid, comm: comm.get(pid)! }), walk(pid));
  };
  walk(root);
  return out;
}

/** CPU of the workerd processes under `root` (Miniflare runs one), µs; null when none is found. */
export function workerdCpuMicros(root: number): number | null {
  const procs = descendants(root).filter((p) => p.comm === 'workerd');
  if (!procs.length) return null;
  let sum = 0;
  for (const p of procs) sum += procCpuMicros(p.pid) ?? 0;
  return sum;
}

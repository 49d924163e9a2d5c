// CPU time a server process spends (all its threads: the main thread, libuv's pool, libvips'), read
// from Linux's /proc/<pid>/stat, so that a run can report the server's CPU per request beside its
// throughput: on a shared two-core machine throughput alone mixes the server's work with waiting.
import { readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/** User + system CPU milliseconds the process has used so far. */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 on: utime is 14th, stime 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

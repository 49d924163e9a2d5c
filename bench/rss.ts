// Resident memory of a server process while something runs, read from Linux's /proc/<pid>/status.
// Two readings of the peak: VmRSS sampled every 20 ms (a curve, which can miss a short spike), and
// VmHWM, the kernel's own high-water mark, reset at the start (writing 5 to /proc/<pid>/clear_refs)
// so that it covers only the run. The peak reported is VmHWM when the reset worked, else the largest
// sample.
import { readFile, writeFile } from 'node:fs/promises';

export const rssIntervalMs = 20;

export interface RssReading {
  /** Resident memory now, in MiB. */
  rssMb: number;
  /** Highest resident memory since start or the last reset, in MiB. */
  hwmMb: number;
}

export interface RssPeak {
  /** When sampling started and when it stopped. */
  startMb: number;
  endMb: number;
  /** The largest VmRSS sample. */
  sampledPeakMb: number;
  samples: number;
  /** VmHWM at the end, when the reset at the start worked (else null: the process's lifetime peak). */
  hwmMb: number | null;
  /** The peak reported: hwmMb when known, else sampledPeakMb. */
  peakMb: number;
}

export interface RssSampler {
  stop(): Promise<RssPeak>;
}

const kbField = (status: string, name: string): number => {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`/proc status has no ${name}`);
  return Number(match[1]);
};

export async function readRss(pid: number): Promise<RssReading> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return { rssMb: kbField(status, 'VmRSS') / 1024, hwmMb: kbField(status, 'VmHWM') / 1024 };
}

/** Resets the process's VmHWM to its current RSS; false when the kernel refuses. */
async function resetPeak(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Starts sampling `pid`'s resident memory; stop() returns the peak since the start. */
export async function sampleRss(pid: number, intervalMs = rssIntervalMs): Promise<RssSampler> {
  const reset = await resetPeak(pid);
  const start = await readRss(pid);
  let peak = start.rssMb;
  let samples = 1;
  let reading: Promise<void> | null = null;
  let failure: Error | null = null;
  const timer = setInterval(() => {
    // A read still pending (the event loop is busy sending the uploads) is not doubled up.
    if (reading) return;
    reading = readRss(pid)
      .then((r) => {
        peak = Math.max(peak, r.rssMb);
        samples++;
      })
      .catch((error: Error) => void (failure ??= error))
      .finally(() => (reading = null));
  }, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await reading;
      if (failure) throw failure;
      const end = await readRss(pid);
      const sampledPeakMb = Math.max(peak, end.rssMb);
      const hwmMb = reset ? end.hwmMb : null;
      return { startMb: start.rssMb, endMb: end.rssMb, sampledPeakMb, samples: samples + 1, hwmMb, peakMb: hwmMb ?? sampledPeakMb };
    },
  };
}

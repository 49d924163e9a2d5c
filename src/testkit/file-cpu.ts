// Each test file's CPU time, for `.ci/run` to list the costliest (issue 40 budgets the suite's CPU):
// when TEST_CPU_REPORT names a file, a line per test file is appended to it — the file, the worker's
// user + system CPU and that of the processes it waited for (servers, CLIs, browsers) in milliseconds,
// from its first hook to its last (the worker's shared imports are not in it), and the wall time.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const report = process.env.TEST_CPU_REPORT;

/** [own, children] CPU milliseconds of this process so far, from /proc (Linux). */
function cpu(): [number, number] {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  // utime, stime, cutime, cstime: the 14th to 17th fields, in clock ticks of 10 ms.
  return [(fields[11]! + fields[12]!) * 10, (fields[13]! + fields[14]!) * 10];
}

if (report) {
  let start: [number, number] = [0, 0];
  let startedAt = 0;
  beforeAll(() => {
    start = cpu();
    startedAt = Date.now();
  });
  afterAll(() => {
    const [own, children] = cpu();
    const file = path.relative(process.cwd(), expect.getState().testPath ?? '');
    appendFileSync(report, `${file}\t${own - start[0]}\t${children - start[1]}\t${Date.now() - startedAt}\n`);
  });
}

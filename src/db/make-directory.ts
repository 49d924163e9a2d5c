// mkdir -p without Node's recursive mkdir, which loops forever (never settles) when a parent exists but
// cannot hold children and answers ENOENT, as under /proc: DATA_DIR=/proc/x made the server hang at
// start instead of saying what is wrong.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Creates `dir` and its missing parents; an existing directory is fine, anything else throws its errno error. */
export async function makeDirectory(dir: string, parentMade = false): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if ((await stat(dir)).isDirectory()) return;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR' });
    }
    const parent = path.dirname(dir);
    // A second ENOENT once the parent exists is final: retrying is the loop Node's own mkdir falls into.
    if (code !== 'ENOENT' || parentMade || parent === dir) throw error;
    await makeDirectory(parent);
    await makeDirectory(dir, true);
  }
}

// Reading a file that something else may remove at the same moment (a media record deleted while it is
// served or backed up): the file is opened first and streamed from its open handle, so it is either
// read whole or absent, never an error its stream emits later, perhaps before anyone listens (which
// ends the process).
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';

/** Bytes `start` to `end` (both included) of a file. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * A regular file's stream (only `range`'s bytes, when given) and its whole size, or null when there is
 * none; a file that is there but cannot be read (permissions) throws.
 */
export async function openForReading(file: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | null> {
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  const info = await handle?.stat().catch(() => null);
  if (!handle || !info?.isFile()) {
    await handle?.close();
    return null;
  }
  return { stream: handle.createReadStream(range ?? {}), size: info.size };
}

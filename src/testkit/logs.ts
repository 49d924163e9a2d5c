// The app's log lines, kept in memory for a test to read: pass `destination` to createTestApp's
// logDestination (the app's own logger, with its redaction and serializers, at LOG_LEVEL).
import type pino from 'pino';

export interface CollectedLogs {
  destination: pino.DestinationStream;
  /** Every line written so far, parsed. */
  lines: Record<string, unknown>[];
}

/** A destination that parses and keeps each line. */
export function collectLogs(): CollectedLogs {
  const lines: Record<string, unknown>[] = [];
  return {
    lines,
    destination: {
      write(chunk: string) {
        for (const line of chunk.split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  };
}

// Counts the SQL statements this process sends to its database, at the driver, the way
// bench/statements.ts counts them on the wire: every simple Query ('Q') and every Execute of the
// extended protocol ('E') is one statement run (BEGIN, set_config and COMMIT included). It taps the
// one entry point of each test database's driver (PGlite's protocol call, node-postgres' connection),
// so it counts on both. The count is process-wide: send the requests being measured one at a time.
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface StatementCounter {
  /** Statements sent since the counter started. */
  statements(): number;
  /** Stops counting: the drivers are as they were. */
  stop(): void;
}

const simpleQuery = 'Q'.charCodeAt(0);
const execute = 'E'.charCodeAt(0);

/** Statements among the frontend protocol messages of `message` (each: a type byte, then an int32 length). */
function statementsIn(message: Uint8Array): number {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  let count = 0;
  for (let at = 0; at + 5 <= message.length; at += 1 + view.getInt32(at + 1)) {
    if (message[at] === simpleQuery || message[at] === execute) count++;
  }
  return count;
}

/** Replaces `target[name]` by a function that reports its arguments, then calls it; returns the undo. */
function tap<T extends object>(target: T, name: keyof T & string, seen: (...args: any[]) => void): () => void {
  const original = target[name] as (...args: unknown[]) => unknown;
  const tapped = function (this: unknown, ...args: unknown[]) {
    seen(...args);
    return original.apply(this, args);
  };
  Object.assign(target, { [name]: tapped });
  return () => Object.assign(target, { [name]: original });
}

/** Starts counting the statements PGlite and node-postgres send, until stop(). */
export function countStatements(): StatementCounter {
  let statements = 0;
  const untap = [
    tap(PGlite.prototype, 'execProtocolRawSync', (message: Uint8Array) => (statements += statementsIn(message))),
    tap(pg.Connection.prototype, 'query', () => statements++),
    tap(pg.Connection.prototype, 'execute', () => statements++),
  ];
  return {
    statements: () => statements,
    stop: () => untap.forEach((undo) => undo()),
  };
}

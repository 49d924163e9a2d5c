// The first statement of every request transaction (request-db.ts): the caller (app.user_id) and the
// app role, both local to the transaction. The caller is written into the statement as a literal, not
// sent as a parameter: a statement without parameters travels in one message with the BEGIN before it
// on PostgreSQL (held-begin.ts), one round trip where a parameter would take two. Its text differs per
// caller, so it is never prepared (database.ts).

/** The PostgreSQL role requests run as (created by the init migration). */
export const appRole = 'app_user';

const head = `SELECT set_config('app.user_id', `;

/** `text` as a PostgreSQL string literal, whatever standard_conforming_strings says: an E'' string reads backslashes as escapes always. */
const literal = (text: string) => `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/** The caller's entry for `userId` (null: anonymous, who sees no user or team rows). */
export const callerEntry = (userId: string | null): string => `${head}${literal(userId ?? '')}, true), set_config('role', '${appRole}', true)`;

/** Whether `sql` is a caller's entry. */
export const isCallerEntry = (sql: string): boolean => sql.startsWith(head);

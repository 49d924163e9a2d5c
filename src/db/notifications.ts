// LISTEN on PostgreSQL: one connection of its own per channel (a pooled connection cannot hold a
// LISTEN), reconnected for as long as the process runs. NOTIFY reaches a listener only while it is
// connected, so a reconnection tells its user that messages may have been missed (`resumed`).
import pg from 'pg';

/** What a listener is told: each message, and that it listens again after it could not. */
export interface NotificationHandlers {
  message(payload: string): void;
  resumed(): void;
}

const retryMaxMs = 2_000;

/** Listens on `channel` at `url` until the returned function is called. */
export async function listenOnPostgres(url: string, channel: string, handlers: NotificationHandlers): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let closed = false;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url, application_name: 'platform-listener' });
    // A connection the server ends (restart, failover) reconnects; unheard, 'error' would end the process.
    next.on('error', () => {});
    next.on('end', () => {
      if (client !== next || closed) return;
      client = null;
      retry();
    });
    next.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) handlers.message(n.payload);
    });
    await next.connect();
    await next.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
    client = next;
  }

  function retry(): void {
    if (closed) return;
    attempt++;
    timer = setTimeout(() => {
      connect().then(
        () => {
          attempt = 0;
          handlers.resumed();
        },
        () => retry(),
      );
    }, Math.min(attempt * 100, retryMaxMs));
    timer.unref();
  }

  await connect();
  return async () => {
    closed = true;
    clearTimeout(timer);
    const open = client;
    client = null;
    await open?.end().catch(() => {});
  };
}

// Prometheus metrics: requests and latency by route and status, event-loop delay (default metrics),
// and the database pool. With METRICS_TOKEN set, only a scraper presenting it may read them.
import client from 'prom-client';
import { bearerToken, sameSecret } from '../auth/secret-token.js';
import type { PoolStats } from '../db/database.js';

export interface Metrics {
  observe(method: string, route: string, status: number, seconds: number): void;
  render(): Promise<{ contentType: string; body: string }>;
}

/** Whether a request may read the metrics: no token configured, or `Authorization: Bearer <token>` (compared in constant time). */
export function metricsAllowed(token: string | null, authorization: string | null): boolean {
  return token === null || sameSecret(token, bearerToken(authorization));
}

export function createMetrics(poolStats: () => PoolStats): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const requests = new client.Counter({ name: 'http_requests_total', help: 'HTTP requests', labelNames: ['method', 'route', 'status'] as const, registers: [registry] });
  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const pool = new client.Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = poolStats();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });
  void pool;
  return {
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

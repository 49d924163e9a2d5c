// TRUST_PROXY=true on a server reached without the proxy lets a client choose the address its rate
// limits and sign-in throttles count (it sends X-Forwarded-For itself): the first request of the
// pipeline that arrives without X-Forwarded-For is logged as a warning, once. Health checks (which a
// load balancer sends straight to the instance) are not such requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectLogs, type CollectedLogs } from '../testkit/logs.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

let trusting: TestApp;
let trustingLogs: CollectedLogs;
let direct: TestApp;
let directLogs: CollectedLogs;
const warnings = (logs: CollectedLogs) => logs.lines.filter((line) => line.level === 40 && /TRUST_PROXY/.test(String(line.msg)));

beforeAll(async () => {
  trustingLogs = collectLogs();
  trusting = await createTestApp({ TRUST_PROXY: 'true', LOG_LEVEL: 'warn' }, undefined, { logDestination: trustingLogs.destination });
  directLogs = collectLogs();
  direct = await createTestApp({ LOG_LEVEL: 'warn' }, trusting, { logDestination: directLogs.destination });
});
afterAll(async () => {
  await direct?.close();
  await trusting?.close();
});

describe('TRUST_PROXY', () => {
  it('warns once when a request arrives without X-Forwarded-For', async () => {
    // Through the proxy, and a health check straight to the instance: nothing to say.
    expect((await trusting.json('GET', '/api/v1/posts', undefined, { 'x-forwarded-for': '198.18.0.1' })).status).toBe(200);
    expect((await trusting.fetch('/healthz')).status).toBe(200);
    expect(warnings(trustingLogs)).toEqual([]);

    for (let i = 0; i < 3; i++) expect((await trusting.json('GET', '/api/v1/posts')).status).toBe(200);
    const [warning, ...more] = warnings(trustingLogs);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({ msg: expect.stringMatching(/without X-Forwarded-For.*chooses the address/), remoteAddress: expect.stringMatching(/127\.0\.0\.1/) });
  });

  it('says nothing when off', async () => {
    expect((await direct.json('GET', '/api/v1/posts')).status).toBe(200);
    expect(warnings(directLogs)).toEqual([]);
  });
});

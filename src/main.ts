// Entry point: OpenTelemetry traces first when the OTEL_* variables ask for them (config/tracing.ts),
// because the SDK must hook node:http before anything imports it; then the server (server.ts), imported
// only now. With traces off (the default) no OpenTelemetry package is loaded.
import { tracesRequested } from './config/tracing.js';

// Nobody may be reading our output any more (a parent that went away): a failed write is not an error.
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

if (tracesRequested()) {
  try {
    const { startTracing } = await import('./telemetry/start.js');
    await startTracing();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Failed to start: OpenTelemetry traces (OTEL_* variables): ${reason.replace(/\s*\n\s*/g, ' ').slice(0, 500)}\n`);
    process.exit(1);
  }
}

const { runServer } = await import('./server.js');
await runServer();

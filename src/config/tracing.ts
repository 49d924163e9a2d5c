// Whether OpenTelemetry traces are on: off by default, on with the standard OTEL_* variables (see
// docs/observability.md). Read here, before anything else is loaded, because the SDK has to be
// started before node:http is imported; the SDK reads every other OTEL_* variable itself.

/** True when `env` (process.env by default) asks for traces: an exporter named in OTEL_TRACES_EXPORTER, or an OTLP endpoint; never with OTEL_SDK_DISABLED=true. */
export function tracesRequested(env: Record<string, string | undefined> = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (exporters.length) return exporters[0] !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

import crypto from 'node:crypto';
import { type Attributes as OtelAttributes, type AttributeValue, type HrTime, SpanKind as OtelSpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { DocQaError } from '../common/errors';
import type { Redactor } from '../common/redact';
import type { AttrValue } from '../shared/trace-model';
import { nobodyListening } from './collector-listening';
import type { LoadedTrace } from './trace-store';

const hr = (ms: number): HrTime => {
  const whole = Math.floor(ms);
  return [Math.floor(whole / 1000), (whole % 1000) * 1e6 + Math.round((ms - whole) * 1e6)];
};

/** OTLP attribute values are scalars or homogeneous scalar arrays; anything else travels as JSON text. */
function otelValue(v: AttrValue): AttributeValue | undefined {
  if (v === null) return undefined;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  return JSON.stringify(v);
}

/** Our spans as the SDK's ReadableSpan, ids kept (span ids are already 16 hex digits). */
export function toReadableSpans(trace: LoadedTrace, appVersion: string, redactor: Redactor): ReadableSpan[] {
  const traceId = trace.meta?.trace_id ?? crypto.createHash('sha256').update(trace.run_id).digest('hex').slice(0, 32);
  const resource = resourceFromAttributes({ 'service.name': 'docqa', 'service.version': appVersion, 'docqa.run_id': trace.run_id });
  return trace.spans.map((s) => {
    const attributes: OtelAttributes = { 'docqa.kind': s.kind };
    for (const [k, v] of Object.entries(redactor.redactValue(s.attributes))) {
      const value = otelValue(v);
      if (value !== undefined) attributes[`docqa.${k}`] = value;
    }
    const ctx = { traceId, spanId: s.span_id, traceFlags: TraceFlags.SAMPLED };
    return {
      name: s.name,
      kind: s.kind === 'llm_call' || s.kind === 'tool_call' ? OtelSpanKind.CLIENT : OtelSpanKind.INTERNAL,
      spanContext: () => ctx,
      parentSpanContext: s.parent_id ? { traceId, spanId: s.parent_id, traceFlags: TraceFlags.SAMPLED } : undefined,
      startTime: hr(s.start_ms),
      endTime: hr(s.end_ms),
      duration: hr(s.end_ms - s.start_ms),
      status: s.status === 'ok' ? { code: SpanStatusCode.OK } : { code: SpanStatusCode.ERROR, message: s.status },
      attributes,
      links: [],
      events: [],
      ended: true,
      resource,
      instrumentationScope: { name: 'docqa', version: appVersion },
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  });
}

/** Sends a trace to an OTLP/HTTP collector (e.g. http://127.0.0.1:4318/v1/traces) with the official exporter. */
export async function exportOtlp(trace: LoadedTrace, url: string, appVersion: string, redactor: Redactor, timeoutMs = 10_000): Promise<{ spans: number }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DocQaError('invalid_argument', `--otlp must be a URL such as http://127.0.0.1:4318/v1/traces, not "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new DocQaError('invalid_argument', `--otlp must be an http(s) URL, not ${parsed.protocol}`);
  const spans = toReadableSpans(trace, appVersion, redactor);
  const nobody = await nobodyListening(parsed, timeoutMs);
  if (nobody) throw new DocQaError('export_failed', `the OTLP collector at ${parsed.origin} did not accept the trace: nothing is listening there (${nobody}); check the address and that the collector is running`);
  const exporter = new OTLPTraceExporter({ url: parsed.toString(), timeoutMillis: timeoutMs });
  try {
    const result = await new Promise<{ code: ExportResultCode; error?: Error }>((resolve) => exporter.export(spans, resolve));
    if (result.code !== ExportResultCode.SUCCESS) {
      throw new DocQaError('export_failed', `the OTLP collector at ${parsed.origin} did not accept the trace: ${redactor.redact(result.error?.message ?? 'unknown error')}`);
    }
  } finally {
    await exporter.shutdown().catch(() => {});
  }
  return { spans: spans.length };
}

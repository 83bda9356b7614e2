import path from 'node:path';
import { z } from 'zod';
import type { DataDir } from '../../common/data-dir';
import { readVersioned, writeVersioned } from '../../common/json-file';
import { isWithin } from '../../common/path-within';
import type { Document } from '../../shared/document';
import { type SkippedEntry } from '../sources/secret-files';
import type { Source } from '../sources/sources';

/**
 * `egress-consent.v2.json`: which sources the person agreed to send to which embedding endpoint. The
 * first build that would send a source's text to an endpoint asks first (see EgressPlan); later builds
 * of that source to that endpoint do not ask again.
 *
 * Format 2 (data layout 2) identifies the endpoint by its origin, scheme://host[:port]. Format 1
 * (`egress-consent.json`, layout 1) kept only URL.host, which leaves out the scheme's default port: a
 * consent given for https://h (port 443, TLS) also covered http://h (port 80, in the clear), a different
 * endpoint. The layout migration (src/app/upgrade) turns each format-1 host h into https://h, so an
 * endpoint that was really plain http is asked about again, never sent to silently.
 */
export const EGRESS_CONSENT_FORMAT_VERSION = 2;
export const EgressConsent = z.object({ source_id: z.string(), source_path: z.string(), origin: z.string(), host: z.string(), model: z.string(), at: z.string() });
export type EgressConsent = z.infer<typeof EgressConsent>;
export const EgressConsentFile = z.object({ formatVersion: z.literal(EGRESS_CONSENT_FORMAT_VERSION), consents: z.array(EgressConsent) });
export type EgressConsentFile = z.infer<typeof EgressConsentFile>;

export const CONSENT_FILE = 'egress-consent.v2.json';
export const consentFile = (dir: DataDir) => path.join(dir.root, CONSENT_FILE);

/** What a build is about to send for the first time, as the confirmation shows it. */
export interface EgressPlan {
  /** host[:port] of the embedding endpoint (as shown), its origin (what consent is given for), and its model. */
  host: string;
  origin: string;
  model: string;
  sources: Array<{ id: string; label: string; path: string; files: number; blocks: number; tokens: number }>;
  files: number;
  blocks: number;
  /** Tokens of the blocks' text; blocks already in the embedding cache are not sent, so this is at most. */
  tokens: number;
  /** What those sources hold that is not read (secret-looking, outside the source, .gitignored). */
  skipped: SkippedEntry[];
  /**
   * The endpoint is a local model server on this machine (Ollama or LM Studio on a loopback address, as
   * the application recognised it): nothing leaves the machine, so the person is told rather than asked.
   * A loopback address alone is not enough: it may be a tunnel or a proxy to a cloud service.
   */
  local?: boolean;
}

export function endpointHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

/** scheme://host[:port] of an endpoint: what a consent is for (the port is explicit unless it is the scheme's default). */
export function endpointOrigin(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return baseUrl;
  }
}

/** Consent records in file order: by origin, then source id. */
export function sortConsents(consents: EgressConsent[]): EgressConsent[] {
  const key = (c: EgressConsent) => `${c.origin}\n${c.source_id}`;
  return consents.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export async function readConsents(dir: DataDir): Promise<EgressConsent[]> {
  return (await readVersioned(consentFile(dir), EGRESS_CONSENT_FORMAT_VERSION, EgressConsentFile))?.consents ?? [];
}

/** Records consent for the plan's sources (the caller holds the build lock: builds write this file, one at a time). */
export async function recordConsent(dir: DataDir, plan: EgressPlan, at: Date): Promise<void> {
  const kept = (await readConsents(dir)).filter((c) => !(c.origin === plan.origin && plan.sources.some((s) => s.id === c.source_id)));
  const added = plan.sources.map((s) => ({ source_id: s.id, source_path: s.path, origin: plan.origin, host: plan.host, model: plan.model, at: at.toISOString() }));
  await writeVersioned(consentFile(dir), { formatVersion: EGRESS_CONSENT_FORMAT_VERSION, consents: sortConsents([...kept, ...added]) });
}

/** A document about to be embedded: parsed, or as a build keeps it (its source, block and token counts). */
export type EgressItem = Pick<Document, 'source_label' | 'blocks'> | { source_label: string; blocks: number; tokens: number };

/**
 * The documents about to be embedded that belong to sources not yet agreed for this endpoint (its
 * origin), counted per source; null when there are none (nothing new leaves the machine).
 */
export function egressPlan(toEmbed: ReadonlyArray<EgressItem>, sources: readonly Source[], skipped: readonly SkippedEntry[], consents: readonly EgressConsent[], baseUrl: string, model: string, local = false): EgressPlan | null {
  const host = endpointHost(baseUrl);
  const origin = endpointOrigin(baseUrl);
  const agreed = new Set(consents.filter((c) => c.origin === origin).map((c) => c.source_id));
  const byLabel = new Map(sources.map((s) => [s.label, s]));
  const per = new Map<string, EgressPlan['sources'][number]>();
  for (const d of toEmbed) {
    const s = byLabel.get(d.source_label);
    if (!s || agreed.has(s.id)) continue;
    const row = per.get(s.id) ?? { id: s.id, label: s.label, path: s.path, files: 0, blocks: 0, tokens: 0 };
    row.files += 1;
    if ('tokens' in d) {
      row.blocks += d.blocks;
      row.tokens += d.tokens;
    } else {
      row.blocks += d.blocks.length;
      row.tokens += d.blocks.reduce((n, b) => n + b.token_count, 0);
    }
    per.set(s.id, row);
  }
  if (per.size === 0) return null;
  const rows = [...per.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const sum = (k: 'files' | 'blocks' | 'tokens') => rows.reduce((n, r) => n + r[k], 0);
  const mine = skipped.filter((k) => rows.some((r) => isWithin(r.path, k.path)));
  return { host, origin, model, sources: rows, files: sum('files'), blocks: sum('blocks'), tokens: sum('tokens'), skipped: mine, local };
}

import path from 'node:path';
import { z } from 'zod';
import type { DataDir } from '../../common/data-dir';
import { readVersioned, writeVersioned } from '../../common/json-file';
import { isWithin } from '../../common/path-within';
import type { Document } from '../model';
import { type SkippedEntry } from '../sources/secret-files';
import type { Source } from '../sources/sources';

/**
 * `egress-consent.json`: which sources the person agreed to send to which embedding host. The first
 * build that would send a source's text to a host asks first (see EgressPlan); later builds of that
 * source to that host do not ask again.
 */
export const EGRESS_CONSENT_FORMAT_VERSION = 1;
export const EgressConsent = z.object({ source_id: z.string(), source_path: z.string(), host: z.string(), model: z.string(), at: z.string() });
export type EgressConsent = z.infer<typeof EgressConsent>;
export const EgressConsentFile = z.object({ formatVersion: z.literal(EGRESS_CONSENT_FORMAT_VERSION), consents: z.array(EgressConsent) });

const consentFile = (dir: DataDir) => path.join(dir.root, 'egress-consent.json');

/** What a build is about to send for the first time, as the confirmation shows it. */
export interface EgressPlan {
  /** host[:port] of the embedding endpoint, and its model. */
  host: string;
  model: string;
  sources: Array<{ id: string; label: string; path: string; files: number; blocks: number; tokens: number }>;
  files: number;
  blocks: number;
  /** Tokens of the blocks' text; blocks already in the embedding cache are not sent, so this is at most. */
  tokens: number;
  /** What those sources hold that is not read (secret-looking, outside the source, .gitignored). */
  skipped: SkippedEntry[];
}

export function endpointHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

export async function readConsents(dir: DataDir): Promise<EgressConsent[]> {
  return (await readVersioned(consentFile(dir), EGRESS_CONSENT_FORMAT_VERSION, EgressConsentFile))?.consents ?? [];
}

/** Records consent for the plan's sources (the caller holds the build lock: builds write this file, one at a time). */
export async function recordConsent(dir: DataDir, plan: EgressPlan, at: Date): Promise<void> {
  const kept = (await readConsents(dir)).filter((c) => !(c.host === plan.host && plan.sources.some((s) => s.id === c.source_id)));
  const added = plan.sources.map((s) => ({ source_id: s.id, source_path: s.path, host: plan.host, model: plan.model, at: at.toISOString() }));
  const consents = [...kept, ...added].sort((a, b) => (a.host + a.source_id < b.host + b.source_id ? -1 : a.host + a.source_id > b.host + b.source_id ? 1 : 0));
  await writeVersioned(consentFile(dir), { formatVersion: EGRESS_CONSENT_FORMAT_VERSION, consents });
}

/**
 * The documents about to be embedded that belong to sources not yet agreed for this host, counted per
 * source; null when there are none (nothing new leaves the machine).
 */
export function egressPlan(toEmbed: readonly Document[], sources: readonly Source[], skipped: readonly SkippedEntry[], consents: readonly EgressConsent[], host: string, model: string): EgressPlan | null {
  const agreed = new Set(consents.filter((c) => c.host === host).map((c) => c.source_id));
  const byLabel = new Map(sources.map((s) => [s.label, s]));
  const per = new Map<string, EgressPlan['sources'][number]>();
  for (const d of toEmbed) {
    const s = byLabel.get(d.source_label);
    if (!s || agreed.has(s.id)) continue;
    const row = per.get(s.id) ?? { id: s.id, label: s.label, path: s.path, files: 0, blocks: 0, tokens: 0 };
    row.files += 1;
    row.blocks += d.blocks.length;
    row.tokens += d.blocks.reduce((n, b) => n + b.token_count, 0);
    per.set(s.id, row);
  }
  if (per.size === 0) return null;
  const rows = [...per.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const sum = (k: 'files' | 'blocks' | 'tokens') => rows.reduce((n, r) => n + r[k], 0);
  const mine = skipped.filter((k) => rows.some((r) => isWithin(r.path, k.path)));
  return { host, model, sources: rows, files: sum('files'), blocks: sum('blocks'), tokens: sum('tokens'), skipped: mine };
}

import path from 'node:path';
import { z } from 'zod';
import type { DataDir } from '../../common/data-dir';
import { readVersioned, writeVersioned } from '../../common/json-file';
import { CONSENT_FILE, EGRESS_CONSENT_FORMAT_VERSION, type EgressConsent, consentFile, readConsents, sortConsents } from '../../index/store/egress-consent';

/**
 * One step of the data directory's layout, N → N+1. It never changes a file of layout N: it writes
 * the files that supersede them beside them (`writes`), so the DocQA of layout N still reads its own
 * data afterwards, and the directory switches only when layout.json is replaced (see open-data-dir).
 */
export interface LayoutMigration {
  from: number;
  to: number;
  /** Files (relative to the data directory) of layout `from` that this step supersedes; kept as they are. */
  supersedes: readonly string[];
  /** Files (relative) this step writes; removed again when the migration fails or is restored. */
  writes: readonly string[];
  /** Writes the new files from the old ones. */
  run(dir: DataDir): Promise<void>;
  /** Parses every file it wrote with the reader this DocQA uses (throws when one does not load). */
  check(dir: DataDir): Promise<void>;
}

/** Layout 1's `egress-consent.json` (format 1), as DocQA 0.1.0 reads it. */
export const EgressConsentV1File = z.object({
  formatVersion: z.literal(1),
  consents: z.array(z.object({ source_id: z.string(), source_path: z.string(), host: z.string(), model: z.string(), at: z.string() })),
});

export const LAYOUT1_CONSENT_FILE = 'egress-consent.json';

/**
 * Layout 1 → 2: egress consent by endpoint origin (egress-consent.ts says why). A format-1 consent
 * named only host[:port]; it becomes https://host[:port], the endpoint it most likely was, so an
 * endpoint that was really plain http is asked about once more instead of being sent to unasked.
 */
const consentByOrigin: LayoutMigration = {
  from: 1,
  to: 2,
  supersedes: [LAYOUT1_CONSENT_FILE],
  writes: [CONSENT_FILE],
  async run(dir) {
    const old = await readVersioned(path.join(dir.root, LAYOUT1_CONSENT_FILE), 1, EgressConsentV1File);
    if (!old) return;
    const consents: EgressConsent[] = old.consents.map((c) => ({ source_id: c.source_id, source_path: c.source_path, origin: `https://${c.host}`, host: c.host, model: c.model, at: c.at }));
    await writeVersioned(consentFile(dir), { formatVersion: EGRESS_CONSENT_FORMAT_VERSION, consents: sortConsents(consents) });
  },
  async check(dir) {
    await readConsents(dir);
  },
};

/** Every step, in order; the last one's `to` is DATA_LAYOUT_VERSION. */
export const LAYOUT_MIGRATIONS: readonly LayoutMigration[] = [consentByOrigin];

import type { EgressPlan } from '../index/store/egress-consent';
import type { SkippedEntry } from '../index/sources/secret-files';

const REASON: Record<SkippedEntry['reason'], string> = {
  secret_looking: 'looks like a secret',
  outside_source: 'a link out of the source',
  gitignored: '.gitignore',
};

/** How many skipped entries a summary names before it says "and N more". */
export const SKIPPED_NAMED = 10;

/** The confirmation's text in English (the CLI's; the extension has its own translated words). */
export function egressSummary(plan: EgressPlan): string[] {
  const lines = [
    `${plan.files} file${plan.files === 1 ? '' : 's'} (${plan.blocks} blocks, about ${plan.tokens.toLocaleString('en-US')} tokens at most) of ${plan.sources.map((s) => `“${s.label}”`).join(', ')} will be sent to ${plan.host} (model ${plan.model}) to be embedded, for the first time.`,
  ];
  if (plan.skipped.length) {
    lines.push(`Not read and not sent (${plan.skipped.length}):`);
    for (const k of plan.skipped.slice(0, SKIPPED_NAMED)) lines.push(`  ${k.path} (${REASON[k.reason]})`);
    if (plan.skipped.length > SKIPPED_NAMED) lines.push(`  … and ${plan.skipped.length - SKIPPED_NAMED} more`);
  }
  return lines;
}

/** Said instead of the confirmation when the embedding endpoint is on this machine (the CLI's words). */
export function localEgressSummary(e: { host: string; model: string; sources: readonly string[]; files: number; blocks: number; tokens: number }): string {
  return `${e.files} file${e.files === 1 ? '' : 's'} (${e.blocks} blocks, about ${e.tokens.toLocaleString('en-US')} tokens at most) of ${e.sources.map((s) => `“${s}”`).join(', ')} will be embedded by ${e.model} at ${e.host}, on this machine: nothing leaves it, so nothing is asked.`;
}

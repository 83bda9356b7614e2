import type { Block, Section } from '../../shared/document';
import type { SectionDraft } from './parsed-document';
import { PATH_SEPARATOR, pathSegment } from './section-path';
import { firstSentences, isTitleText } from './sentences';

/** A title as a section shows it: white space folded, never empty (its path segment also writes `>` as `›`). */
export function normalizeTitle(title: string): string {
  const t = title.replace(/\s+/g, ' ').trim();
  return t.length > 0 ? t : '(untitled)';
}

/**
 * Gives every draft a unique path (section-path.ts). Sibling segments that repeat become `Title (2)`,
 * `Title (3)` … in document order, skipping any suffix a real sibling already uses, so paths are unique
 * and stable.
 */
export function assignPaths(drafts: readonly SectionDraft[]): string[] {
  const titles = drafts.map((d) => pathSegment(d.title));
  const literal = new Map<string, Set<string>>();
  const key = (parent: number | null) => (parent === null ? '' : String(parent));
  drafts.forEach((d, i) => {
    const k = key(d.parent);
    if (!literal.has(k)) literal.set(k, new Set());
    literal.get(k)!.add(titles[i]!);
  });
  const used = new Map<string, Set<string>>();
  /**
   * Per parent and title, the suffix the last repeat took. Names only get taken, so the smallest free
   * suffix never goes down and the search resumes there: starting at 2 for every repeat was quadratic
   * (5,000 sibling "Setup" headings took 5 s, 20,000 took 83 s).
   */
  const lastSuffix = new Map<string, number>();
  const paths: string[] = [];
  drafts.forEach((d, i) => {
    const k = key(d.parent);
    if (!used.has(k)) used.set(k, new Set());
    const taken = used.get(k)!;
    const base = titles[i]!;
    let name = base;
    if (taken.has(name)) {
      const resume = `${k}\u0000${base}`;
      for (let n = lastSuffix.get(resume) ?? 2; ; n++) {
        name = `${base} (${n})`;
        if (!taken.has(name) && !literal.get(k)!.has(name)) {
          lastSuffix.set(resume, n);
          break;
        }
      }
    }
    taken.add(name);
    paths.push(d.parent === null ? name : `${paths[d.parent]}${PATH_SEPARATOR}${name}`);
  });
  return paths;
}

/** Builds the section list (document order) with counts and first sentences from the final blocks. */
export function buildSections(drafts: readonly SectionDraft[], paths: readonly string[], blocks: readonly Block[], blockSection: readonly number[]): Section[] {
  const n = drafts.length;
  const depth: number[] = [];
  const directBlocks = new Array<number>(n).fill(0);
  const directTokens = new Array<number>(n).fill(0);
  for (const d of drafts) depth.push(d.parent === null ? 1 : depth[d.parent]! + 1);
  blocks.forEach((b, bi) => {
    const s = blockSection[bi]!;
    directBlocks[s]!++;
    directTokens[s]! += b.token_count;
  });
  const subtreeBlocks = [...directBlocks];
  const subtreeTokens = [...directTokens];
  for (let i = n - 1; i >= 0; i--) {
    const p = drafts[i]!.parent;
    if (p !== null) {
      subtreeBlocks[p]! += subtreeBlocks[i]!;
      subtreeTokens[p]! += subtreeTokens[i]!;
    }
  }
  // The first block in a section's subtree, in document order, gives its first sentence.
  const firstBlock = new Array<number>(n).fill(-1);
  blocks.forEach((_, bi) => {
    for (let s: number | null = blockSection[bi]!; s !== null && firstBlock[s] === -1; s = drafts[s]!.parent) firstBlock[s] = bi;
  });
  const within = (bi: number, s: number) => {
    for (let t: number | null = bi < blocks.length ? blockSection[bi]! : null; t !== null; t = drafts[t]!.parent) if (t === s) return true;
    return false;
  };
  // A PDF section's text opens with its heading line: the sentence after the title is the first one
  // (the next block's, when the heading is a block of its own), or the outline would repeat its titles.
  // Found per block in one batch, then again for the few sections whose sentence is their title.
  const titles = drafts.map((d) => normalizeTitle(d.title));
  const source = new Array<number>(n);
  const unique: number[] = [];
  const seen = new Set<number>();
  for (let s = 0; s < n; s++) {
    let bi = firstBlock[s]!;
    if (bi >= 0 && isTitleText(blocks[bi]!.text, titles[s]!) && within(bi + 1, s)) bi++;
    source[s] = bi;
    if (bi >= 0 && !seen.has(bi)) {
      seen.add(bi);
      unique.push(bi);
    }
  }
  const sentences = firstSentences(unique.map((bi) => blocks[bi]!.text));
  const ofBlock = new Map<number, string>();
  unique.forEach((bi, k) => ofBlock.set(bi, sentences[k]!));
  const first = new Array<string>(n).fill('');
  const repeats: number[] = [];
  for (let s = 0; s < n; s++) {
    if (source[s]! < 0) continue;
    first[s] = ofBlock.get(source[s]!)!;
    if (isTitleText(first[s]!, titles[s]!)) repeats.push(s);
  }
  if (repeats.length > 0) {
    const after = firstSentences(
      repeats.map((s) => blocks[source[s]!]!.text),
      repeats.map((s) => titles[s]!),
    );
    repeats.forEach((s, k) => (first[s] = after[k]!));
  }
  return drafts.map((d, i) => ({
    path: paths[i]!,
    title: titles[i]!,
    ordinal: i + 1,
    depth: depth[i]!,
    parent_path: d.parent === null ? null : paths[d.parent]!,
    direct_blocks: directBlocks[i]!,
    subtree_blocks: subtreeBlocks[i]!,
    direct_tokens: directTokens[i]!,
    subtree_tokens: subtreeTokens[i]!,
    first_sentence: first[i]!,
    location: d.location,
  }));
}

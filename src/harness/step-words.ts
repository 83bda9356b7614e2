import { z } from 'zod';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { lastSegment } from '../index/blocks/section-path';
import type { ToolPayload } from '../tools/tool';

/**
 * What one tool call looked at and what it found, as data (for the UI, the fallback and the
 * completeness statement) and in plain words in English and Chinese. A scope over documents always says
 * how many of how many, so "scanned 42 of 42 documents" can be told from "scanned 1 document".
 */
export const StepScope = z.object({
  tool: z.string(),
  /** The documents in scope: all of them when the input named none. */
  documents: z.object({
    count: z.number().int(),
    of: z.number().int(),
    all: z.boolean(),
    titles: z.array(z.string()),
    /** A scoped question (run-scope.ts): `of` counts the documents of its scope, not of the collection. */
    scoped: z.boolean().optional(),
  }),
  /** list_blocks: the section paths read (empty = the whole document). */
  sections: z.array(z.string()),
  /** The query (search_blocks) or the literal term (scan_term). */
  text: z.string().nullable(),
  /** list_documents filters, as given. */
  filters: z.record(z.string(), z.string()),
});
export type StepScope = z.infer<typeof StepScope>;

export const StepOutcome = z.object({
  kind: z.enum(['ok', 'empty', 'error', 'not_admitted']),
  /** Blocks whose full text came back (search_blocks, list_blocks). */
  blocks: z.number().int(),
  /** scan_term: occurrences, and the blocks and documents they are in. */
  hits: z.number().int(),
  hit_blocks: z.number().int(),
  hit_documents: z.number().int(),
  /** list_documents / get_outline: documents returned, and the sections of their outlines. */
  documents: z.number().int(),
  sections: z.number().int(),
  empty_reason: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** Why a result was left out of the context (a budget), and its size. */
  not_admitted: z.object({ reason: z.string(), tokens: z.number().int() }).nullable(),
});
export type StepOutcome = z.infer<typeof StepOutcome>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** What a call looks at; with a question scope (its doc_ids), counted within the scope. */
export function scopeOf(tool: string, input: Record<string, unknown>, snapshot: LoadedSnapshot, scope?: readonly string[]): StepScope {
  const titleOf = new Map(snapshot.documents.map((d) => [d.doc_id, d.title]));
  const titles = (ids: readonly string[]) => ids.map((id) => titleOf.get(id) ?? id);
  const all = scope ? scope.length : snapshot.documents.length;
  const scoped = scope ? { scoped: true } : {};
  const everything = { count: all, of: all, all: true, titles: scope ? titles(scope) : [], ...scoped };
  const named = tool === 'list_blocks' ? strings([input.doc_id]) : strings(input.doc_ids);
  const ids = [...new Set(named)];
  const docs = ids.length ? { count: ids.length, of: all, all: Boolean(scope) && ids.length === all, titles: titles(ids), ...scoped } : everything;
  const filters: Record<string, string> = {};
  for (const k of ['source', 'lang', 'title_contains']) if (typeof input[k] === 'string') filters[k] = input[k] as string;
  return { tool, documents: tool === 'list_documents' ? everything : docs, sections: tool === 'list_blocks' ? strings(input.section_paths) : [], text: str(input.query) ?? str(input.term), filters };
}

export function outcomeOf(payload: ToolPayload | null, notAdmitted: { reason: string; tokens: number } | null = null): StepOutcome {
  const base: StepOutcome = { kind: 'ok', blocks: 0, hits: 0, hit_blocks: 0, hit_documents: 0, documents: 0, sections: 0, empty_reason: null, error: null, not_admitted: notAdmitted };
  if (!payload) return { ...base, kind: 'not_admitted' };
  if (payload.error) return { ...base, kind: 'error', error: { code: payload.error.code, message: payload.error.message } };
  const blocks = (payload.blocks as unknown[] | undefined)?.length ?? 0;
  const hitList = (payload.hits as Array<{ doc_id: string; count: number }> | undefined) ?? [];
  const docList = (payload.documents as Array<{ sections?: unknown }> | undefined) ?? [];
  const sections = docList.reduce((n, d) => n + (Array.isArray(d.sections) ? d.sections.length : 0), 0);
  const out: StepOutcome = {
    ...base,
    kind: notAdmitted ? 'not_admitted' : payload.empty_reason ? 'empty' : 'ok',
    blocks,
    hits: typeof payload.total_count === 'number' ? payload.total_count : 0,
    hit_blocks: hitList.length,
    hit_documents: new Set(hitList.map((h) => h.doc_id)).size,
    documents: docList.length,
    sections,
    empty_reason: payload.empty_reason ?? null,
  };
  return out;
}

export type Lang = 'zh' | 'en';

const q = (s: string) => `“${s}”`;
const title = (s: string, lang: Lang) => (lang === 'zh' ? `《${s}》` : `“${s}”`);

function docsPhrase(d: StepScope['documents'], lang: Lang): string {
  const one = d.count === 1 && d.titles.length === 1;
  if (lang === 'zh') {
    if (one) return title(d.titles[0]!, lang);
    if (d.scoped) return d.all ? `范围内的 ${d.of} 篇文档` : d.count <= 3 ? d.titles.map((t) => title(t, lang)).join('、') : `范围内 ${d.of} 篇中的 ${d.count} 篇文档`;
    if (d.all) return `全部 ${d.of} 篇文档`;
    return d.count <= 3 ? d.titles.map((t) => title(t, lang)).join('、') : `${d.count} 篇文档`;
  }
  if (one) return title(d.titles[0]!, lang);
  if (d.scoped) return d.all ? `the ${d.of} documents in scope` : d.count <= 3 ? d.titles.map((t) => title(t, lang)).join(', ') : `${d.count} of the ${d.of} documents in scope`;
  if (d.all) return `all ${d.of} document${d.of === 1 ? '' : 's'}`;
  return d.count <= 3 ? d.titles.map((t) => title(t, lang)).join(', ') : `${d.count} of ${d.of} documents`;
}

/** What a step does, as a UI shows it while it runs ("Scanning all 42 documents for “Transformer”"). */
export function describeScope(s: StepScope, lang: Lang): string {
  const docs = docsPhrase(s.documents, lang);
  const text = s.text ?? '';
  if (lang === 'zh') {
    switch (s.tool) {
      case 'list_documents':
        return `列出文档${Object.keys(s.filters).length ? `（${Object.entries(s.filters).map(([k, v]) => `${k}=${v}`).join('，')}）` : ''}`;
      case 'get_outline':
        return `读取${docs}的目录`;
      case 'search_blocks':
        return `在${docs}中搜索${q(text)}`;
      case 'list_blocks':
        return s.sections.length === 0 ? `读取${docs}全文` : s.sections.length === 1 ? `读取${docs}的 § ${lastSegment(s.sections[0]!)}` : `读取${docs}的 ${s.sections.length} 个章节`;
      case 'scan_term':
        return `在${docs}中逐字扫描${q(text)}`;
    }
    return s.tool;
  }
  switch (s.tool) {
    case 'list_documents':
      return `Listing documents${Object.keys(s.filters).length ? ` (${Object.entries(s.filters).map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`;
    case 'get_outline':
      return `Reading the outline of ${docs}`;
    case 'search_blocks':
      return `Searching ${docs} for ${q(text)}`;
    case 'list_blocks':
      return s.sections.length === 0 ? `Reading all of ${docs}` : s.sections.length === 1 ? `Reading § ${lastSegment(s.sections[0]!)} of ${docs}` : `Reading ${s.sections.length} sections of ${docs}`;
    case 'scan_term':
      return `Scanning ${docs} for ${q(text)}`;
  }
  return s.tool;
}

/** What a step found ("17 hits in 5 blocks", "nothing found", "not added: over the context budget"). */
export function describeOutcome(tool: string, o: StepOutcome, lang: Lang): string {
  const zh = lang === 'zh';
  // The schema lets a stored or posted outcome be an error without its details: still words, not a crash.
  if (o.kind === 'error') return o.error ? (zh ? `失败：${o.error.message}` : `failed: ${o.error.message}`) : zh ? '失败' : 'failed';
  if (o.kind === 'not_admitted') {
    const budget = o.not_admitted?.reason === 'request_budget_exceeded' ? (zh ? '请求预算' : 'request budget') : zh ? '上下文预算' : 'context budget';
    return zh ? `结果（${o.not_admitted?.tokens ?? 0} tokens）超出${budget}，未加入` : `not added: the result (${o.not_admitted?.tokens ?? 0} tokens) did not fit the ${budget}`;
  }
  switch (tool) {
    case 'scan_term':
      if (o.hits === 0) return zh ? '0 处命中' : '0 hits';
      return zh ? `${o.hit_blocks} 个块中 ${o.hits} 处命中` : `${o.hits} hit${o.hits === 1 ? '' : 's'} in ${o.hit_blocks} block${o.hit_blocks === 1 ? '' : 's'}`;
    case 'search_blocks':
      return o.blocks === 0 ? (zh ? '未找到' : 'nothing found') : zh ? `${o.blocks} 个块` : `${o.blocks} block${o.blocks === 1 ? '' : 's'}`;
    case 'list_blocks':
      return o.blocks === 0 ? (zh ? '范围内没有块' : 'no blocks in that scope') : zh ? `全部 ${o.blocks} 个块` : `all ${o.blocks} block${o.blocks === 1 ? '' : 's'}`;
    case 'list_documents':
      return o.documents === 0 ? (zh ? '没有匹配的文档' : 'no document matched') : zh ? `${o.documents} 篇文档` : `${o.documents} document${o.documents === 1 ? '' : 's'}`;
    case 'get_outline':
      return zh ? `${o.documents} 份目录，${o.sections} 个章节` : `${o.documents} outline${o.documents === 1 ? '' : 's'}, ${o.sections} sections`;
  }
  return o.kind;
}

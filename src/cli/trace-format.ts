import type { AttrValue } from '../shared/trace-model';
import { type LoadedTrace, type SpanNode, spanTree } from '../trace/trace-store';

const ms = (n: number) => (n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(1)} ms`);
const short = (v: AttrValue, max = 80): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/** The few attributes worth a glance on each kind of span; `--json` has them all. */
function summary(n: SpanNode): string {
  const a = n.attributes;
  const parts: string[] = [];
  switch (n.kind) {
    case 'request':
      parts.push(`${a.status ?? ''}${a.reason ? ` ${a.reason}` : ''}`.trim(), `${a.agent_turns} turns, ${a.tool_calls} tool calls, ${a.model_calls} model calls, ${a.rejected_requests} rejected`, `tokens ${a.prompt_tokens}+${a.completion_tokens}`);
      if (a.stop_reason) parts.push(`stop ${a.stop_reason}`);
      break;
    case 'turn':
      if (a.action) parts.push(`→ ${a.action}`);
      break;
    case 'llm_call':
      parts.push(`tokens ${a.prompt_tokens ?? '?'}+${a.completion_tokens ?? '?'}`);
      if (a.prompt_cache_hit_tokens !== null && a.prompt_cache_hit_tokens !== undefined) parts.push(`cache hit ${a.prompt_cache_hit_tokens}`);
      if (a.finish_reason) parts.push(`finish ${a.finish_reason}`);
      if (a.error_kind) parts.push(`error ${a.error_kind}`);
      break;
    case 'tool_call':
      parts.push(`${a.tool_call_id}`, short(a.input ?? {}), String(a.outcome ?? ''));
      if (a.information_gain) parts.push(`rated ${a.rated_tool_call_id} ${a.information_gain}`);
      if (a.auto_information_gain) parts.push(`auto ${a.auto_information_gain}`);
      break;
    case 'rejected_request':
      parts.push(String(a.reason), a.violation ? String(a.violation) : '', a.stop_reason ? String(a.stop_reason) : '');
      break;
    case 'budget_decision':
      parts.push(a.check === 'admission' ? `${a.admitted ? 'admitted' : `refused (${a.reason})`} ${a.result_tokens} tokens` : `${a.decision} (${a.reason})`);
      break;
    case 'retry':
      parts.push(`attempt ${a.attempt} after ${a.after_error}`);
      break;
    case 'release':
      parts.push(`${a.status}${a.reason ? ` ${a.reason}` : ''}`, `${(a.citations as unknown[] | undefined)?.length ?? 0} citations`);
      if ((a.removed_citations as unknown[] | undefined)?.length) parts.push(`${(a.removed_citations as unknown[]).length} removed`);
      break;
  }
  return parts.filter(Boolean).join('  ');
}

/** `docqa trace show`: an indented tree with durations, statuses, tokens; a header with the manifest's essentials. */
export function formatTrace(t: LoadedTrace): string {
  const lines: string[] = [];
  const m = t.meta;
  if (m) {
    lines.push(`run ${t.run_id}  ${m.started_at}  ${m.mode} trace${m.partial ? `  PARTIAL (${m.records_dropped} records lost${m.writer_error ? `: ${m.writer_error}` : ''})` : ''}`);
    lines.push(`question: ${m.question}`);
    const c = m.conversation;
    if (c && (c.turns || c.dropped)) lines.push(`conversation: ${c.turns} earlier turn${c.turns === 1 ? '' : 's'} in the prompts (${c.tokens} tokens)${c.dropped ? `, ${c.dropped} older left out (max ${m.manifest.max_conversation_tokens ?? '?'} tokens)` : ''}`);
    lines.push(`snapshot ${m.manifest.snapshot.id} (${m.manifest.snapshot.completeness})  model ${m.manifest.chat.model} (thinking ${m.manifest.chat.thinking})  prompt ${m.manifest.prompt_bundle.id}@${m.manifest.prompt_bundle.hash.slice(0, 12)}  config ${m.manifest.config_hash.slice(0, 12)}`);
  } else lines.push(`run ${t.run_id}  INCOMPLETE: trace.json was never written (the run crashed or its writer failed)`);
  if (t.unreadable_lines) lines.push(`(${t.unreadable_lines} unreadable record lines skipped)`);
  const walk = (n: SpanNode, depth: number) => {
    const status = n.status === 'ok' ? '' : ` [${n.status}]`;
    lines.push(`${'  '.repeat(depth)}${n.name}${status}  ${ms(n.end_ms - n.start_ms)}  ${summary(n)}`.trimEnd());
    for (const c of n.children) walk(c, depth + 1);
  };
  for (const r of spanTree(t.spans)) walk(r, 0);
  return `${lines.join('\n')}\n`;
}

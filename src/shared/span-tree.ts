import type { SpanRecord } from './trace-model';

export interface SpanNode extends SpanRecord {
  children: SpanNode[];
}

/** The span tree: children in start order (span id breaks ties); spans whose parent was lost become roots. */
export function spanTree(spans: readonly SpanRecord[]): SpanNode[] {
  const nodes = new Map(spans.map((s) => [s.span_id, { ...s, children: [] as SpanNode[] }]));
  const roots: SpanNode[] = [];
  for (const n of nodes.values()) {
    const parent = n.parent_id ? nodes.get(n.parent_id) : undefined;
    (parent ? parent.children : roots).push(n);
  }
  const order = (a: SpanNode, b: SpanNode) => a.start_ms - b.start_ms || (a.span_id < b.span_id ? -1 : 1);
  // Every list sorted once, without recursion: a deep trace must not overflow the stack.
  roots.sort(order);
  for (const n of nodes.values()) n.children.sort(order);
  return roots;
}

/**
 * The canonical form of a tool input, so that the same request written differently is recognised as a
 * repeat before it runs: keys sorted, strings trimmed and NFC-normalised, lists of strings (doc ids,
 * section paths) treated as sets (sorted, without repeats), other values kept. Only parameter-level
 * identity: two different wordings of one idea are not the same scope (the model rates those NO_GAIN).
 */
function canonical(value: unknown): unknown {
  if (typeof value === 'string') return value.trim().normalize('NFC');
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    if (items.every((x) => typeof x === 'string')) return [...new Set(items as string[])].sort();
    return items;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = canonical(v);
    }
    return out;
  }
  return value;
}

export function scopeKey(tool: string, input: unknown): string {
  return `${tool}:${JSON.stringify(canonical(input ?? {}))}`;
}

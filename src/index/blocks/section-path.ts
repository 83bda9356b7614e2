/**
 * Section paths: a section's title and its ancestors' titles joined by ` > `, e.g. `Cells > Membranes`.
 * A title is written into a path with every `>` replaced by `›` (U+203A), so the separator occurs only
 * between segments: every path splits back into exactly its segments, two sections never share a path,
 * and a path lies within another exactly when its segments start with the other's. Before (parse
 * version 1) only ` > ` inside a title was replaced: a heading `X >` with a child `Y` and a heading `X`
 * with a child `> Y` both made `X > > Y`, and `X`'s subtree took in `X >`'s by string prefix.
 *
 * A replacement and not a backslash escape: a path is written back by the model inside a JSON string,
 * where a backslash must itself be escaped (`\\>`), a step models get wrong; `›` needs nothing. The
 * section's `title` keeps the heading as written.
 */
export const PATH_SEPARATOR = ' > ';

/** A title as one segment of a path: white space folded, `>` written `›`, never empty. */
export function pathSegment(title: string): string {
  const t = title.replace(/\s+/g, ' ').trim().replace(/>/g, '›');
  return t.length > 0 ? t : '(untitled)';
}

/** A path's segments, root first. */
export function pathSegments(path: string): string[] {
  return path.split(PATH_SEPARATOR);
}

/** Whether the section at `path` is `ancestor` or lies within it: a comparison of whole segments. */
export function isWithin(path: string, ancestor: string): boolean {
  if (path === ancestor) return true;
  if (!path.startsWith(ancestor)) return false;
  const a = pathSegments(ancestor);
  const p = pathSegments(path);
  return p.length > a.length && a.every((s, i) => p[i] === s);
}

/** The last segment of a path: the section's own name in it. */
export function lastSegment(path: string): string {
  return pathSegments(path).pop()!.trim();
}

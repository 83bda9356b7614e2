import { DOCUMENT_ATTRS, DOCUMENT_CLASS, DOCUMENT_DROPPED, DOCUMENT_TAGS } from '../../shared/document-allowlist';
import { type DomElement, isElement, parseHtml } from './html-dom';

const COMMENT_NODE = 8;

const KEEP = new Set(DOCUMENT_TAGS);
const DROP = new Set(DOCUMENT_DROPPED);
const ATTRS = new Set(DOCUMENT_ATTRS);

/**
 * A rendered document reduced to the allowlist (src/shared/document-allowlist.ts) before it leaves the
 * worker: dropped elements go with their content, other unknown elements are unwrapped (their text
 * stays), and only the allowed attributes remain. Returns the cleaned HTML of `<body>`'s content.
 */
export function cleanRendered(html: string): string {
  const doc = parseHtml(`<!DOCTYPE html><html><body>${html}</body></html>`);
  const body = doc.body!;
  const unwrap: DomElement[] = [];
  const stack: DomElement[] = [body];
  while (stack.length) {
    const el = stack.pop()!;
    for (const child of Array.from(el.childNodes)) {
      if (child.nodeType === COMMENT_NODE) (child as DomElement).remove();
      if (!isElement(child)) continue;
      const tag = child.localName.toLowerCase();
      if (DROP.has(tag)) {
        child.remove();
        continue;
      }
      for (const name of Array.from((child as unknown as { attributes: ArrayLike<{ name: string }> }).attributes).map((a) => a.name)) {
        if (!ATTRS.has(name.toLowerCase()) || (name === 'class' && child.getAttribute('class') !== DOCUMENT_CLASS)) child.removeAttribute(name);
      }
      // Unknown elements (a <font>, an <a> without its target) are unwrapped once cleaned: their text stays.
      if (!KEEP.has(tag)) unwrap.push(child);
      stack.push(child);
    }
  }
  for (const el of unwrap) {
    const parent = el.parentNode as DomElement | null;
    if (!parent) continue;
    for (const c of Array.from(el.childNodes)) parent.insertBefore(c, el);
    el.remove();
  }
  return body.innerHTML;
}

import { DOMParser } from 'linkedom';

/**
 * The part of the DOM our HTML walker uses, as linkedom implements it (the core has no DOM lib). linkedom
 * parses with htmlparser2: it runs no script, loads no resource (no image, stylesheet or frame is
 * fetched) and expands no entity beyond HTML's named ones, which is what a parser of hostile pages needs.
 */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly childNodes: ArrayLike<DomNode>;
  readonly parentNode: DomNode | null;
  readonly ownerDocument: DomDocument;
  textContent: string | null;
}

export interface DomElement extends DomNode {
  readonly localName: string;
  readonly children: ArrayLike<DomElement>;
  innerHTML: string;
  readonly outerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  insertBefore(node: DomNode, before: DomNode | null): void;
  appendChild(node: DomNode): void;
  remove(): void;
}

export interface DomDocument {
  readonly documentElement: DomElement;
  readonly body: DomElement | null;
  readonly head: DomElement | null;
  readonly title: string;
  createElement(name: string): DomElement;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

export const isElement = (n: DomNode): n is DomElement => n.nodeType === ELEMENT_NODE;

/** An HTML (or XHTML, read as HTML so that `<title/>` and `&nbsp;` behave as browsers read them) document. */
export function parseHtml(html: string): DomDocument {
  // linkedom builds a document only around an <html> element: a fragment ("<p>…", a page cut short, plain
  // text) comes out with an empty body or none, and its getters then throw. A browser reads it as a body.
  const whole = /<html[\s>]/i.test(html) ? html : `<!DOCTYPE html><html>${/<body[\s>]/i.test(html) ? html : `<body>${html}</body>`}</html>`;
  const doc = new DOMParser().parseFromString(whole, 'text/html') as unknown as DomDocument;
  if (doc.documentElement && doc.body) return doc;
  return new DOMParser().parseFromString('<!DOCTYPE html><html><body></body></html>', 'text/html') as unknown as DomDocument;
}

/** An XML document (package files, slide XML): element names as written, prefixes included (`a:t`). */
export function parseXml(xml: string): DomDocument {
  return new DOMParser().parseFromString(xml, 'text/xml') as unknown as DomDocument;
}

/** Children that are elements, as an array. */
export function elementChildren(el: DomElement): DomElement[] {
  return Array.from(el.children);
}

/** `name` as written (`dc:title`), or without a prefix (`CipherReference` matches `enc:CipherReference`). */
function named(el: DomElement, name: string): boolean {
  const n = el.nodeName;
  return n === name || el.localName === name || (!name.includes(':') && n.endsWith(`:${name}`));
}

/** Descendant elements named `name` (as written, prefix included), in document order, without a selector engine. */
export function descendants(root: DomElement, name: string): DomElement[] {
  const out: DomElement[] = [];
  const stack: DomElement[] = Array.from(root.children).reverse();
  while (stack.length) {
    const el = stack.pop()!;
    if (named(el, name)) out.push(el);
    const kids = el.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return out;
}

/** The first descendant named `name`, or null. */
export function firstDescendant(root: DomElement, name: string): DomElement | null {
  return descendants(root, name)[0] ?? null;
}

/** Minimal escaping for text put into HTML we generate (slides). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

import { IngestError } from '../../common/errors';

/** Deeper than any real document nests (Word's tables in tables, an e-book's divs run to tens). */
export const MAX_XML_DEPTH = 1_000;

const ENTITY_DECLARATION = /<!ENTITY/i;
const TAG = /<(\/?)([A-Za-z_][^\s/>]*)[^>]*?(\/?)>/g;
/** HTML's void elements, which an XHTML chapter written carelessly leaves open (`<br>`). */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/**
 * Refuses an XML or XHTML part before any parser sees it, when it declares entities or nests too deeply.
 * No Office file or e-book needs its own entities, and our parsers never resolve external ones nor read
 * a DTD; a declaration is what a billion-laughs or external-entity attack is made of, so the document
 * fails (`corrupt`) saying so rather than trusting each library to be careful. Nesting is bounded
 * because the converters walk the tree recursively: a 100,000-deep part would overflow the stack.
 */
export function checkXmlPart(text: string, part: string, what: string): void {
  const doctype = text.search(/<!DOCTYPE/i);
  if (doctype >= 0 && ENTITY_DECLARATION.test(text.slice(doctype))) {
    throw new IngestError('parse', 'corrupt', `the part ${part} of this ${what} declares XML entities (<!ENTITY …>), which no real ${what} does and DocQA never expands (an entity-expansion or external-entity attack)`);
  }
  let depth = 0;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(text); m; m = TAG.exec(text)) {
    if (m[3] || VOID.has(m[2]!.toLowerCase())) continue;
    if (m[1]) depth--;
    else {
      depth++;
      if (depth > MAX_XML_DEPTH) throw new IngestError('parse', 'corrupt', `the part ${part} of this ${what} nests elements more than ${MAX_XML_DEPTH} deep, which no real ${what} does`);
    }
  }
}

/**
 * What a rendered document may hold on its way to the document view: text structure only. The worker
 * that renders a file keeps nothing else (render-file.ts), and the view sanitises with the same list
 * again (DOMPurify), so no script, image, stylesheet, frame, link target, style or handler of a hostile
 * file ever reaches the page, and nothing is loaded from it.
 */
export const DOCUMENT_TAGS: readonly string[] = ['section', 'article', 'div', 'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'blockquote', 'pre', 'code', 'em', 'strong', 'b', 'i', 'u', 's', 'sub', 'sup', 'small', 'mark', 'span', 'br', 'hr', 'figure', 'figcaption', 'address', 'main', 'header', 'footer', 'aside', 'abbr', 'cite', 'q', 'kbd', 'samp', 'var', 'del', 'ins', 'ruby', 'rt', 'rp'];

/** Elements dropped with everything in them (their text is not the document's: code, styles, media). */
export const DOCUMENT_DROPPED: readonly string[] = ['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'frame', 'frameset', 'object', 'embed', 'canvas', 'audio', 'video', 'img', 'picture', 'source', 'link', 'meta', 'base', 'head', 'title', 'form', 'input', 'button', 'select', 'textarea', 'nav'];

export const DOCUMENT_ATTRS: readonly string[] = ['data-docqa-el', 'data-docqa-part', 'colspan', 'rowspan', 'start', 'class'];

/** The one class kept: our slides' speaker notes, which the view styles. */
export const DOCUMENT_CLASS = 'docqa-notes';

import path from 'node:path';
import type { DocumentParser } from './parser';
import { markdownParser } from './markdown';
import { pdfParser } from './pdf';
import { plainTextParser } from './plain-text';
import { rendered } from './rendered-formats';

/**
 * Every format DocQA reads, each once. A rendered format (read as HTML and shown in the document view) is
 * `rendered(name, extensions)`: its parser is src/index/parse/rendered/<name>.ts, loaded on first use.
 */
export const PARSERS: readonly DocumentParser[] = [
  markdownParser,
  plainTextParser,
  pdfParser,
  rendered('docx', ['.docx']),
  rendered('epub', ['.epub']),
  rendered('html', ['.html', '.htm', '.xhtml']),
  rendered('pptx', ['.pptx']),
];

const byExtension = new Map<string, DocumentParser>();
for (const p of PARSERS) for (const ext of p.extensions) byExtension.set(ext, p);

export const SUPPORTED_EXTENSIONS: readonly string[] = [...byExtension.keys()].sort();

export function parserFor(filePath: string): DocumentParser | null {
  return byExtension.get(path.extname(filePath).toLowerCase()) ?? null;
}

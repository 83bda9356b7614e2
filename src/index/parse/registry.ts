import path from 'node:path';
import type { DocumentParser } from './parser';
import { markdownParser } from './markdown';
import { pdfParser } from './pdf';
import { plainTextParser } from './plain-text';
import { docxParser, epubParser, htmlParser, pptxParser } from './rendered-formats';

export const PARSERS: readonly DocumentParser[] = [markdownParser, plainTextParser, pdfParser, docxParser, epubParser, htmlParser, pptxParser];

const byExtension = new Map<string, DocumentParser>();
for (const p of PARSERS) for (const ext of p.extensions) byExtension.set(ext, p);

export const SUPPORTED_EXTENSIONS: readonly string[] = [...byExtension.keys()].sort();

export function parserFor(filePath: string): DocumentParser | null {
  return byExtension.get(path.extname(filePath).toLowerCase()) ?? null;
}

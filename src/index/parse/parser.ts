import type { DocumentFormat } from '../model';
import type { ParsedDocument } from '../blocks/parsed-document';

export interface ParseContext {
  /** For messages, and its extension for a format's dialect (.mdx); parsers never touch the file system. */
  path: string;
  signal?: AbortSignal;
}

/** One module per format behind this interface; the registry picks one by file extension. */
export interface DocumentParser {
  readonly format: DocumentFormat;
  readonly extensions: readonly string[];
  parse(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument>;
}

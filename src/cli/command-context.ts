import type { DataDir } from '../common/data-dir';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import type { QueryEmbedder } from '../tools/tool';
import type { CliIo } from './main';

/** What every command group needs from the program: output, the data directory, the query embedder. */
export interface CommandContext {
  io: CliIo;
  store: () => DataDir;
  json: (value: unknown) => void;
  queryEmbedder: (snapshot: LoadedSnapshot) => QueryEmbedder | undefined;
}

/** The prompt language for a question: Chinese when it has Chinese characters. */
export function questionLanguage(question: string): 'zh' | 'en' {
  return /[\u3400-\u9fff]/u.test(question) ? 'zh' : 'en';
}

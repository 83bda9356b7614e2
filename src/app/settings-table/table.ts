import { z } from 'zod';
import { ChatConfig } from '../../harness/model-client';
import { Budgets } from '../../harness/budget';
import { Thresholds } from '../../harness/run-limits';
import { EmbeddingConfig } from '../../index/embed/embedding-client';
import { ChunkingParams, IngestOptions } from '../../index/model';
import { TraceMode } from '../../shared/trace-model';
import { setting } from './setting';

const RemoteEmbedding = EmbeddingConfig.options[0];
const Globs = IngestOptions.shape.globs.unwrap();

/**
 * Every setting of DocQA, once: the CLI reads the environment through it, the extension reads its
 * configuration through it, AppSettings takes the type and default of the run, trace and retention
 * groups from it, and `npm run gen:manifest` writes package.json's settings, its Restricted Mode list
 * and the nls entries from it (a test fails when they differ). The order is the Settings editor's.
 * How to add one: docs/development.md, "How to add a setting".
 */
export const SETTINGS = [
  setting({
    path: 'chat.base_url',
    schema: ChatConfig.shape.base_url,
    env: 'DOCQA_CHAT_BASE_URL',
    vscode: { key: 'docqa.chat.baseUrl', scope: 'application' },
    description: {
      en: 'Base URL of the OpenAI-compatible chat API that answers questions. Set it in your user settings only: a workspace cannot send your chat key to another host. The key itself is stored in the OS keychain, never in settings.',
      zh: '用于回答问题的 OpenAI 兼容聊天 API 的基础 URL。只能在用户设置中设置：工作区无法把你的聊天密钥发送到其他主机。密钥本身保存在操作系统钥匙串中，从不写入设置。',
    },
  }),
  setting({
    path: 'chat.model',
    schema: ChatConfig.shape.model,
    env: 'DOCQA_CHAT_MODEL',
    vscode: { key: 'docqa.chat.model', scope: 'application' },
    description: {
      en: 'Name of the chat model that answers questions (for example deepseek-v4-flash).',
      zh: '回答问题所用的聊天模型名称（例如 deepseek-v4-flash）。',
    },
  }),
  setting({
    path: 'chat.thinking',
    schema: ChatConfig.shape.thinking,
    env: 'DOCQA_CHAT_THINKING',
    vscode: { key: 'docqa.chat.thinking' },
    description: {
      en: 'Whether the chat model thinks before it answers. Recorded with every answer.',
      zh: '聊天模型在回答前是否先进行思考。每个回答都会记录此项。',
    },
    values: {
      enabled: { en: 'The model reasons before answering: slower, uses more tokens.', zh: '模型先推理再回答：速度较慢，消耗更多 token。' },
      disabled: { en: 'The model answers directly.', zh: '模型直接回答。' },
    },
  }),
  setting({
    path: 'host.chat_provider',
    schema: z.enum(['endpoint', 'vscode']).default('endpoint'),
    vscode: { key: 'docqa.chat.provider', scope: 'application' },
    description: {
      en: 'Which chat model answers in VS Code: DocQA\'s own OpenAI-compatible endpoint (docqa.chat.baseUrl, with its API key), or one of VS Code\'s language models (Copilot\'s, or any model added to VS Code), chosen with "DocQA: Pick VS Code Language Model"; that one needs no DocQA chat key. In @docqa, the model picked in the chat is used unless this is set. User settings only.',
      zh: '在 VS Code 中由哪个聊天模型回答：DocQA 自己的 OpenAI 兼容端点（docqa.chat.baseUrl，使用其 API 密钥），或 VS Code 的语言模型之一（Copilot 的模型，或添加到 VS Code 的任何模型），通过“DocQA: 选择 VS Code 语言模型”选择；后者无需 DocQA 聊天密钥。在 @docqa 中，除非设置了此项，否则使用聊天中选择的模型。只能在用户设置中配置。',
    },
    values: {
      endpoint: { en: 'DocQA\'s OpenAI-compatible chat endpoint (the default).', zh: 'DocQA 的 OpenAI 兼容聊天端点（默认）。' },
      vscode: { en: 'A VS Code language model, picked with "DocQA: Pick VS Code Language Model".', zh: 'VS Code 语言模型，通过“DocQA: 选择 VS Code 语言模型”选择。' },
    },
  }),
  setting({
    path: 'embedding.provider',
    schema: z.enum(EmbeddingConfig.options.map((o) => o.shape.provider.value)),
    env: 'DOCQA_EMBEDDING_PROVIDER',
    vscode: { key: 'docqa.embedding.provider', scope: 'application' },
    description: {
      en: 'Where the search index gets its embeddings. Changing it requires a rebuild of the index.',
      zh: '搜索索引的嵌入向量来源。更改后需要重建索引。',
    },
    values: {
      'openai-compatible': { en: 'An OpenAI-compatible embedding API (set its base URL and model).', zh: 'OpenAI 兼容的嵌入 API（需设置其基础 URL 和模型）。' },
      none: { en: 'No embeddings: keyword-only search.', zh: '不使用嵌入：仅关键词搜索。' },
    },
    rebuild: true,
  }),
  setting({
    path: 'embedding.base_url',
    schema: RemoteEmbedding.shape.base_url,
    env: 'DOCQA_EMBEDDING_BASE_URL',
    vscode: { key: 'docqa.embedding.baseUrl', scope: 'application' },
    description: {
      en: 'Base URL of the OpenAI-compatible embedding API. Set it in your user settings only: a workspace cannot send your embedding key to another host. Changing it requires a rebuild of the index.',
      zh: 'OpenAI 兼容嵌入 API 的基础 URL。只能在用户设置中设置：工作区无法把你的嵌入密钥发送到其他主机。更改后需要重建索引。',
    },
    rebuild: true,
    unset: '',
  }),
  setting({
    path: 'embedding.model',
    schema: RemoteEmbedding.shape.model,
    env: 'DOCQA_EMBEDDING_MODEL',
    vscode: { key: 'docqa.embedding.model', scope: 'application' },
    description: {
      en: 'Name of the embedding model. Changing it requires a rebuild of the index.',
      zh: '嵌入模型的名称。更改后需要重建索引。',
    },
    rebuild: true,
    unset: '',
  }),
  setting({
    path: 'embedding.dimensions',
    schema: RemoteEmbedding.shape.dimensions,
    env: 'DOCQA_EMBEDDING_DIMENSIONS',
    vscode: { key: 'docqa.embedding.dimensions', scope: 'application' },
    description: {
      en: 'Length of the embedding vectors to ask for, for models that can shorten them; null keeps the model\'s own size. Changing it requires a rebuild of the index.',
      zh: '请求的嵌入向量长度，适用于支持缩短向量的模型；null 表示保持模型自身的维度。更改后需要重建索引。',
    },
    rebuild: true,
    unset: null,
  }),
  setting({
    path: 'run.budgets.max_context_tokens',
    schema: Budgets.shape.max_context_tokens,
    env: 'DOCQA_MAX_CONTEXT_TOKENS',
    vscode: { key: 'docqa.budgets.maxContextTokens' },
    description: {
      en: 'Largest prompt, in tokens, sent to the chat model in one call.',
      zh: '单次调用发送给聊天模型的提示词上限（token 数）。',
    },
  }),
  setting({
    path: 'run.budgets.max_request_tokens',
    schema: Budgets.shape.max_request_tokens,
    env: 'DOCQA_MAX_REQUEST_TOKENS',
    vscode: { key: 'docqa.budgets.maxRequestTokens' },
    description: {
      en: 'Most chat tokens one question may spend in total, across all model calls and retries.',
      zh: '一个问题在所有模型调用和重试中总共可消耗的聊天 token 上限。',
    },
  }),
  setting({
    path: 'run.budgets.finalization_reserve_tokens',
    schema: Budgets.shape.finalization_reserve_tokens,
    env: 'DOCQA_FINAL_RESERVE_TOKENS',
    vscode: { key: 'docqa.budgets.finalReserveTokens' },
    description: {
      en: 'Tokens always kept free for the final answer.',
      zh: '始终为最终回答预留的 token 数。',
    },
  }),
  setting({
    path: 'run.budgets.max_tool_calls',
    schema: Budgets.shape.max_tool_calls,
    env: 'DOCQA_MAX_TOOL_CALLS',
    vscode: { key: 'docqa.budgets.maxToolCalls' },
    description: {
      en: 'Most search and read steps the model may take for one question.',
      zh: '模型为一个问题最多可执行的搜索和阅读步骤数。',
    },
  }),
  setting({
    path: 'run.thresholds.no_gain',
    schema: Thresholds.shape.no_gain,
    env: 'DOCQA_NO_GAIN_THRESHOLD',
    vscode: { key: 'docqa.thresholds.noGain' },
    description: {
      en: 'Stop searching after this many steps in a row that find nothing new.',
      zh: '连续这么多步没有找到新内容后停止搜索。',
    },
  }),
  setting({
    path: 'run.thresholds.violations',
    schema: Thresholds.shape.violations,
    env: 'DOCQA_VIOLATION_THRESHOLD',
    vscode: { key: 'docqa.thresholds.violations' },
    description: {
      en: 'Stop after this many answers in a row that break the citation rules.',
      zh: '连续这么多次回答违反引用规则后停止。',
    },
  }),
  setting({
    path: 'run.max_question_chars',
    schema: z.number().int().min(1).default(4000),
    env: 'DOCQA_MAX_QUESTION_CHARS',
    vscode: { key: 'docqa.question.maxChars' },
    description: {
      en: 'Longest question accepted, in characters.',
      zh: '可接受的最长问题（字符数）。',
    },
  }),
  setting({
    path: 'run.max_conversation_tokens',
    schema: z.number().int().min(0).default(2000),
    env: 'DOCQA_MAX_CONVERSATION_TOKENS',
    description: {
      en: 'Bound, in tokens, on a follow-up\'s earlier questions and answers in its prompts (the most recent that fit go in); 0 sends none.',
      zh: '追问时放入提示词的先前问答的 token 上限（放入能容纳的最近几轮）；0 表示不放入。',
    },
  }),
  setting({
    path: 'trace.mode',
    schema: TraceMode.default('metadata'),
    env: 'DOCQA_TRACE',
    vscode: { key: 'docqa.trace.mode' },
    description: {
      en: 'What the trace of each question records.',
      zh: '每个问题的追踪记录哪些内容。',
    },
    values: {
      metadata: { en: 'Steps, timings and token counts, without document text or prompts.', zh: '步骤、耗时和 token 计数，不含文档文本和提示词。' },
      full: { en: 'Everything, including prompts, retrieved text and answers.', zh: '全部内容，包括提示词、检索到的文本和回答。' },
    },
  }),
  setting({
    path: 'trace.keep',
    schema: z.number().int().min(1).default(500),
    env: 'DOCQA_KEEP_TRACES',
    vscode: { key: 'docqa.trace.keep' },
    description: {
      en: 'How many traces to keep; older ones are deleted.',
      zh: '保留多少条追踪记录；更早的会被删除。',
    },
  }),
  setting({
    path: 'retention.keep',
    schema: z.number().int().min(0).default(5),
    env: 'DOCQA_KEEP_SNAPSHOTS',
    vscode: { key: 'docqa.retention.keepSnapshots' },
    description: {
      en: 'How many of the newest earlier index snapshots to keep besides the current one (for replay and rollback).',
      zh: '除当前快照外，保留最近多少个较早的索引快照（用于重放和回滚）。',
    },
  }),
  setting({
    path: 'retention.keep_days',
    schema: z.number().min(0).nullable().default(null),
    env: 'DOCQA_KEEP_SNAPSHOT_DAYS',
    vscode: { key: 'docqa.retention.keepDays' },
    description: {
      en: 'Also keep earlier index snapshots younger than this many days; null means no age rule.',
      zh: '另外保留不超过这么多天的较早索引快照；null 表示不按时间保留。',
    },
  }),
  setting({
    path: 'ingest.max_file_bytes',
    schema: IngestOptions.shape.max_file_bytes,
    env: 'DOCQA_MAX_FILE_BYTES',
    vscode: { key: 'docqa.ingest.maxFileBytes' },
    description: {
      en: 'Files larger than this many bytes are not indexed (they are listed as too large). Changing it requires a rebuild of the index.',
      zh: '超过此字节数的文件不会被索引（会列为过大）。更改后需要重建索引。',
    },
    rebuild: true,
  }),
  setting({
    path: 'ingest.chunking.target_tokens',
    schema: ChunkingParams.shape.target_tokens,
    env: 'DOCQA_BLOCK_TARGET_TOKENS',
    vscode: { key: 'docqa.ingest.blockTargetTokens' },
    description: {
      en: 'Size, in tokens, that indexed blocks aim for. Must be between the minimum and the maximum block size. Changing it requires a rebuild of the index.',
      zh: '索引块的目标大小（token 数），必须介于最小和最大块大小之间。更改后需要重建索引。',
    },
    rebuild: true,
  }),
  setting({
    path: 'ingest.chunking.max_tokens',
    schema: ChunkingParams.shape.max_tokens,
    env: 'DOCQA_BLOCK_MAX_TOKENS',
    vscode: { key: 'docqa.ingest.blockMaxTokens' },
    description: {
      en: 'Largest indexed block, in tokens. Changing it requires a rebuild of the index.',
      zh: '索引块的最大大小（token 数）。更改后需要重建索引。',
    },
    rebuild: true,
  }),
  setting({
    path: 'ingest.chunking.min_tokens',
    schema: ChunkingParams.shape.min_tokens,
    env: 'DOCQA_BLOCK_MIN_TOKENS',
    vscode: { key: 'docqa.ingest.blockMinTokens' },
    description: {
      en: 'Neighbouring pieces smaller than this many tokens are merged within a section. Changing it requires a rebuild of the index.',
      zh: '同一章节内小于此 token 数的相邻片段会被合并。更改后需要重建索引。',
    },
    rebuild: true,
  }),
  setting({
    path: 'ingest.max_document_ms',
    schema: IngestOptions.shape.max_document_ms,
    env: 'DOCQA_MAX_DOCUMENT_MS',
    vscode: { key: 'docqa.ingest.maxDocumentMs' },
    description: {
      en: 'Longest time, in milliseconds, that reading one document may take; a document that takes longer is stopped and listed as too slow, and the rest of the build goes on. Changing it requires a rebuild of the index.',
      zh: '读取单个文档最多可用的时间（毫秒）；超时的文档会被停止并列为过慢，其余部分继续构建。更改后需要重建索引。',
    },
    rebuild: true,
  }),
  setting({
    path: 'ingest.max_worker_memory_mb',
    schema: IngestOptions.shape.max_worker_memory_mb,
    env: 'DOCQA_MAX_WORKER_MEMORY_MB',
    vscode: { key: 'docqa.ingest.maxWorkerMemoryMb' },
    description: {
      en: 'Memory, in MB, that each document reader (a worker thread) may use; a document that needs more is stopped and listed as out of memory, without touching the rest of VS Code. At least 256. Changing it requires a rebuild of the index.',
      zh: '每个文档读取线程（worker）最多可用的内存（MB）；需要更多内存的文档会被停止并列为内存不足，不影响 VS Code 的其他部分。至少 256。更改后需要重建索引。',
    },
    rebuild: true,
  }),
  setting({
    path: 'ingest.ocr',
    schema: IngestOptions.shape.ocr,
    env: 'DOCQA_INGEST_OCR',
    vscode: { key: 'docqa.ingest.ocr' },
    description: {
      en: 'Read scanned pages of PDFs (pages that are images without text) with OCR, in English and Simplified Chinese, on this computer. It takes a few seconds a page; off, those pages are listed as unread. Changing it requires a rebuild of the index.',
      zh: '用 OCR 在本机读取 PDF 中的扫描页（只有图像、没有文字的页面），支持英文和简体中文。每页需要几秒；关闭时这些页面会被列为未读。更改后需要重建索引。',
    },
    rebuild: true,
  }),
  setting({
    path: 'ingest.globs.include',
    schema: Globs.shape.include,
    vscode: { key: 'docqa.sources.include' },
    description: {
      en: 'Glob patterns of the files to index in every source (for example **/*.md); empty means every supported file. Changing it requires a rebuild of the index.',
      zh: '每个来源中要索引的文件的 glob 模式（例如 **/*.md）；为空表示所有支持的文件。更改后需要重建索引。',
    },
    rebuild: true,
  }),
  setting({
    path: 'ingest.globs.exclude',
    schema: Globs.shape.exclude,
    vscode: { key: 'docqa.sources.exclude' },
    description: {
      en: 'Glob patterns of files and folders to leave out of every source (for example drafts/**). Changing it requires a rebuild of the index.',
      zh: '每个来源中要排除的文件和文件夹的 glob 模式（例如 drafts/**）。更改后需要重建索引。',
    },
    rebuild: true,
  }),
  setting({
    path: 'host.otlp_endpoint',
    schema: z.string().default(''),
    vscode: { key: 'docqa.trace.otlpEndpoint', scope: 'application' },
    description: {
      en: 'An OpenTelemetry collector\'s OTLP/HTTP traces endpoint (for example http://127.0.0.1:4318/v1/traces). When set, the trace viewer offers "Export to OTLP". Optional: traces are always kept and viewed locally. User settings only.',
      zh: 'OpenTelemetry Collector 的 OTLP/HTTP traces 端点（例如 http://127.0.0.1:4318/v1/traces）。设置后，Trace 查看器提供“导出到 OTLP”。可选：Trace 始终保存在本地并可在本地查看。只能在用户设置中配置。',
    },
  }),
] as const;

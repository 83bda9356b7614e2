// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const CORE = ['src/common/**', 'src/index/**', 'src/tools/**', 'src/harness/**', 'src/trace/**', 'src/eval/**', 'src/app/**'];
const VSCODE = { name: 'vscode', message: 'The core must not import vscode; only src/extension.ts and src/vscode/ may.' };
const HOSTS = ['cli', 'mcp', 'vscode'];
/** The project's folders besides src/shared (the leaf every other one reads) and the hosts. */
const SRC_LAYERS = ['common', 'index', 'tools', 'harness', 'trace', 'eval', 'app'];
/** src/ is never built from webview/ code: what both sides show (words, schemas) lives in src/shared. */
const NO_WEBVIEW = { group: ['**/webview/*', '**/webview/**'], message: 'src/ must not import webview/: words and schemas both sides use belong in src/shared' };
/** For each folder, what it may not import. */
const LAYERS = [
  ['common', ['index', 'tools', 'harness', 'trace', 'eval', 'app', ...HOSTS]],
  ['index', ['tools', 'harness', 'trace', 'eval', 'app', ...HOSTS]],
  ['tools', ['harness', 'trace', 'eval', 'app', ...HOSTS]],
  ['trace', ['harness', 'tools', 'eval', 'app', ...HOSTS]],
  ['harness', ['eval', 'app', ...HOSTS]],
  ['eval', ['app', ...HOSTS]],
  ['app', HOSTS],
  // The MCP server is a host over the application layer, started by the CLI (`docqa mcp`).
  ['mcp', ['cli', 'vscode']],
];
/**
 * The extension host is shared with every other extension: the core changes no process-wide state.
 * Only a worker's entry module (a `…-worker.ts` file, in its own thread) may.
 */
const SHARED_HOST = [
  { selector: "CallExpression[callee.object.name='process'][callee.property.name='exit']", message: 'The core never ends the process.' },
  { selector: "CallExpression[callee.object.name='console']", message: 'The core has no console output; pass a logger.' },
  { selector: "AssignmentExpression > MemberExpression.left[object.name='console']", message: 'The core never replaces console methods (only a …-worker.ts entry may, in its thread).' },
  { selector: "AssignmentExpression > MemberExpression.left[object.name='globalThis']", message: 'The core sets no globals (only a …-worker.ts entry may, in its thread).' },
  { selector: "AssignmentExpression > MemberExpression.left[object.name='g']", message: 'The core sets no globals (only a …-worker.ts entry may, in its thread).' },
  { selector: "CallExpression[callee.object.name='process'][callee.property.name=/^(on|once|addListener|prependListener|chdir|setUncaughtExceptionCaptureCallback)$/]", message: 'The core adds no process listeners and never changes the working directory.' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.e2e/**', 'scratch/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', __dirname: 'readonly', require: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-console': 'off',
    },
  },
  {
    // The hosts (cli, vscode, extension.ts) too: nothing under src/ imports the webviews' code.
    files: ['src/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_WEBVIEW] }] },
  },
  {
    // The core runs in plain Node (CLI, tests) and in the extension host: it must never see `vscode`,
    // and it never writes to the console or ends the process.
    files: CORE,
    rules: {
      'no-restricted-imports': ['error', { paths: [VSCODE], patterns: [NO_WEBVIEW] }],
      'no-restricted-syntax': ['error', ...SHARED_HOST],
    },
  },
  // The pipeline's direction: common ← index ← tools ← harness ← app ← hosts; the trace is a sink that
  // the harness writes to and imports nothing of the harness.
  ...LAYERS.map(([folder, forbidden]) => ({
    files: [`src/${folder}/**`],
    rules: {
      'no-restricted-imports': ['error', { paths: [VSCODE], patterns: [...forbidden.map((f) => ({ group: [`**/${f}/*`, `**/${f}`], message: `src/${folder} must not import src/${f} (see the layer list in eslint.config.mjs)` })), NO_WEBVIEW] }],
    },
  })),
  {
    // src/shared is the leaf every layer, host and webview reads: the protocols, the run's vocabulary, the
    // persisted shapes the webviews show (conversations, traces, evaluations, documents) and their words.
    // It imports zod and itself, nothing else of the project and nothing of Node (webviews bundle it).
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [VSCODE],
          patterns: [
            { group: ['../*', '../**'], message: 'src/shared imports only zod and src/shared: move what it needs into src/shared (see eslint.config.mjs)' },
            { group: ['node:*'], message: 'src/shared is bundled into the webviews: no Node modules' },
          ],
        },
      ],
    },
  },
  {
    // The webviews read the run, the index and the trace through src/shared only: never a layer of the
    // core or a host (which would also pull them into the page's bundle).
    files: ['webview/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [VSCODE], patterns: [...SRC_LAYERS, 'cli', 'mcp', 'vscode'].map((f) => ({ group: [`**/src/${f}/*`, `**/src/${f}`], message: `a webview must not import src/${f}: use the vocabulary and protocols in src/shared` })) }] },
  },
  {
    // A worker's entry module runs in its own thread and may prepare it (globals pdf.js needs, console).
    files: ['src/**/*-worker.ts'],
    rules: { 'no-restricted-syntax': ['error', { selector: "CallExpression[callee.object.name='process'][callee.property.name='exit']", message: 'The core never ends the process.' }] },
  },
);

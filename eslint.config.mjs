// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const CORE = ['src/index/**', 'src/tools/**', 'src/harness/**', 'src/trace/**', 'src/eval/**'];

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
    // The core runs in plain Node (CLI, tests) and in the extension host: it must never see `vscode`,
    // and it never writes to the console or ends the process.
    files: CORE,
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'The core must not import vscode; only src/extension.ts and src/vscode/ may.' }] }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='process'][callee.property.name='exit']", message: 'The core never ends the process.' },
        { selector: "CallExpression[callee.object.name='console']", message: 'The core has no console output; pass a logger.' },
      ],
    },
  },
);

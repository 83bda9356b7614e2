/**
 * Entry of dist/o200k.js: gpt-tokenizer's o200k encoding (3.4 MB of ranks) as a bundle of its own, so
 * that commands which count nothing (`docqa --version`, `sources list`, the extension's activation) do
 * not read and compile it. tokenizer.ts loads it at the first count.
 */
export { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

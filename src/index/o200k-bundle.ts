/**
 * Entry of dist/o200k.js: gpt-tokenizer's o200k ranks (3.4 MB) as a bundle of its own, so that commands
 * which count nothing (`docqa --version`, `sources list`, the extension's activation) do not read and
 * compile them. tokenizer.ts loads it at the first count.
 */
export { default as o200kRanks } from 'gpt-tokenizer/bpeRanks/o200k_base';

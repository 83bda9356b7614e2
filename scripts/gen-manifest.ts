/**
 * `npm run gen:manifest`: writes the generated parts of package.json (settings, Restricted Mode list,
 * the format clauses of the Explorer's menu, the language model tools), of the nls files (the settings'
 * and the tools' words) and of the docs' format table from the settings table, the tool values and the
 * parser registry (scripts/manifest-sections.ts). Idempotent: a second run
 * changes nothing. `--check` writes nothing and exits 1 when a file differs (what the test checks too).
 */
import fs from 'node:fs';
import path from 'node:path';
import { GENERATED_FILES, generate } from './manifest-sections';

const ROOT = path.join(__dirname, '..');
const check = process.argv.includes('--check');
let differs = 0;
for (const file of GENERATED_FILES) {
  const at = path.join(ROOT, file);
  const text = fs.readFileSync(at, 'utf8');
  const next = generate(file, text);
  if (next === text) continue;
  differs++;
  if (check) process.stderr.write(`${file} differs from what the settings table and the parser registry generate: run npm run gen:manifest\n`);
  else {
    fs.writeFileSync(at, next);
    process.stdout.write(`wrote ${file}\n`);
  }
}
if (check && differs) process.exitCode = 1;

// Assembles src/index/dot-kernel.wat with wabt and writes the bytes into src/index/dot-kernel.ts
// (DOT_KERNEL_BASE64). The unit tests assemble the source the same way and fail if the two differ.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import initWabt from 'wabt';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'index');

export async function assembleDotKernel() {
  const wabt = await initWabt();
  const module = wabt.parseWat('dot-kernel.wat', fs.readFileSync(path.join(dir, 'dot-kernel.wat'), 'utf8'), { simd: true });
  try {
    return Buffer.from(module.toBinary({}).buffer).toString('base64');
  } finally {
    module.destroy();
  }
}

export function base64Literal(b64) {
  const lines = b64.match(/.{1,96}/g) ?? [];
  return lines.map((l) => `  '${l}'`).join(' +\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = path.join(dir, 'dot-kernel.ts');
  const source = fs.readFileSync(file, 'utf8');
  const literal = base64Literal(await assembleDotKernel());
  const next = source.replace(/(export const DOT_KERNEL_BASE64 =\n)[\s\S]*?;\n/, (_, head) => `${head}${literal};\n`);
  fs.writeFileSync(file, next);
  console.log(next === source ? 'dot-kernel.ts is up to date' : 'dot-kernel.ts rewritten');
}

/**
 * Assembles src/index/search/dot-kernel.wat with wabt and writes the bytes into src/index/search/dot-kernel.ts
 * (DOT_KERNEL_BASE64): `npm run build:kernel`. The unit tests call `assembleDotKernel` and fail if the
 * committed bytes differ from the source.
 */
import fs from 'node:fs';
import path from 'node:path';
import initWabt from 'wabt';

const DIR = path.join(__dirname, '..', 'src', 'index', 'search');

export async function assembleDotKernel(): Promise<string> {
  const wabt = await initWabt();
  const module = wabt.parseWat('dot-kernel.wat', fs.readFileSync(path.join(DIR, 'dot-kernel.wat'), 'utf8'), { simd: true });
  try {
    return Buffer.from(module.toBinary({}).buffer).toString('base64');
  } finally {
    module.destroy();
  }
}

async function main(): Promise<void> {
  const file = path.join(DIR, 'dot-kernel.ts');
  const source = fs.readFileSync(file, 'utf8');
  const literal = ((await assembleDotKernel()).match(/.{1,96}/g) ?? []).map((l) => `  '${l}'`).join(' +\n');
  const next = source.replace(/(export const DOT_KERNEL_BASE64 =\n)[\s\S]*?;\n/, (_, head: string) => `${head}${literal};\n`);
  fs.writeFileSync(file, next);
  console.log(next === source ? 'dot-kernel.ts is up to date' : 'dot-kernel.ts rewritten');
}

if (require.main === module) void main();

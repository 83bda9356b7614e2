import { z } from 'zod';
import { StoreError, errorMessage } from '../../common/errors';
import { readSmallOrWhole, writeDurable } from '../../common/durable-write';

/**
 * A file of named typed arrays that loads without parsing: `DQPK` magic, a uint32 header length, a JSON
 * header `{formatVersion, meta, sections: [{name, type, offset, length}]}`, then each array 8-byte
 * aligned, little-endian. Used for the keyword index; arrays are views on one read buffer. Version 2:
 * keyword packs carry their terms as arrays (termChars, termStarts), not as a JSON list in the header
 * (version 1, still read). Version 3: keyword packs carry a headings field (headTfs, headLengths);
 * versions 1 and 2, which have none, still read. Version 4: sections may also be f64 and u8 (a
 * segment's block table: text offsets past 4 GiB); the keyword pack of a format-2 segment keeps its
 * postings in a file of their own (segment-store.ts).
 */
export const PACK_FORMAT_VERSION = 4;
const MAGIC = 'DQPK';

type ArrayType = 'u32' | 'u16' | 'u8' | 'f32' | 'f64';
export type Typed = Uint32Array | Uint16Array | Uint8Array | Float32Array | Float64Array;

const CTOR = { u32: Uint32Array, u16: Uint16Array, u8: Uint8Array, f32: Float32Array, f64: Float64Array } as const;

/** The header as it must be once its version is known to be readable (a damaged one threw TypeErrors and RangeErrors). */
const PackHeader = z.object({
  formatVersion: z.number().int().min(1),
  meta: z.unknown(),
  sections: z.array(z.object({ name: z.string(), type: z.enum(['u32', 'u16', 'u8', 'f32', 'f64']), offset: z.number().int().min(0), length: z.number().int().min(0) })),
});
function typeOf(a: Typed): ArrayType {
  if (a instanceof Uint32Array) return 'u32';
  if (a instanceof Uint16Array) return 'u16';
  if (a instanceof Uint8Array) return 'u8';
  if (a instanceof Float64Array) return 'f64';
  return 'f32';
}

/** The bytes of a pack file. */
export function encodePack(meta: unknown, arrays: Record<string, Typed>): Buffer {
  const sections: Array<{ name: string; type: ArrayType; offset: number; length: number }> = [];
  let offset = 0;
  for (const [name, a] of Object.entries(arrays)) {
    sections.push({ name, type: typeOf(a), offset, length: a.length });
    offset += Math.ceil(a.byteLength / 8) * 8;
  }
  const header = Buffer.from(JSON.stringify({ formatVersion: PACK_FORMAT_VERSION, meta, sections }), 'utf8');
  const headerPadded = Math.ceil((8 + header.length) / 8) * 8;
  const buf = Buffer.alloc(headerPadded + offset);
  buf.write(MAGIC, 0, 'latin1');
  buf.writeUInt32LE(header.length, 4);
  header.copy(buf, 8);
  for (const s of sections) {
    const a = arrays[s.name]!;
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(buf, headerPadded + s.offset);
  }
  return buf;
}

export async function writePack(file: string, meta: unknown, arrays: Record<string, Typed>): Promise<void> {
  try {
    await writeDurable(file, encodePack(meta, arrays));
  } catch (err) {
    throw new StoreError('store_io', `cannot write ${file}: ${errorMessage(err)}`, { cause: err });
  }
}

export async function readPack(file: string): Promise<DecodedPack> {
  let bytes: Uint8Array;
  try {
    bytes = await readSmallOrWhole(file);
  } catch (err) {
    throw new StoreError('store_io', `cannot read ${file}: ${errorMessage(err)}`, { cause: err });
  }
  return decodePack(bytes, file);
}

export interface DecodedPack {
  formatVersion: number;
  meta: unknown;
  arrays: Record<string, Typed>;
}

/** A pack's arrays as views on `bytes` (which must start 8-byte aligned in its buffer); `file` names it in errors. */
export function decodePack(bytes: Uint8Array, file: string): DecodedPack {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 8 || buf.toString('latin1', 0, 4) !== MAGIC) throw new StoreError('store_corrupt', `${file} is not a DocQA pack file`);
  const hlen = buf.readUInt32LE(4);
  let json: unknown;
  try {
    json = JSON.parse(buf.toString('utf8', 8, 8 + hlen));
  } catch {
    throw new StoreError('store_corrupt', `${file} has a damaged header`);
  }
  const version = (json as { formatVersion?: unknown } | null)?.formatVersion;
  if (typeof version === 'number' && version > PACK_FORMAT_VERSION) throw new StoreError('store_future_version', `${file} has formatVersion ${version}; upgrade DocQA`);
  const parsed = PackHeader.safeParse(json);
  if (!parsed.success) throw new StoreError('store_corrupt', `${file} has a damaged header`);
  const header = parsed.data;
  const base = Math.ceil((8 + hlen) / 8) * 8;
  // Sections start 8-byte aligned in the file and the read buffer starts at offset 0: views, no copy.
  // fromEntries: a section named `__proto__` is an own key, not the object's prototype.
  const arrays: Record<string, Typed> = Object.fromEntries(
    header.sections.map((s) => {
      const Ctor = CTOR[s.type];
      const at = buf.byteOffset + base + s.offset;
      if (base + s.offset + s.length * Ctor.BYTES_PER_ELEMENT > buf.length || at % Ctor.BYTES_PER_ELEMENT !== 0) throw new StoreError('store_corrupt', `${file} is truncated (section ${s.name})`);
      return [s.name, new Ctor(buf.buffer as ArrayBuffer, at, s.length)];
    }),
  );
  return { formatVersion: header.formatVersion, meta: header.meta, arrays };
}

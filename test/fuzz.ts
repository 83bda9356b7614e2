import assert from 'node:assert/strict';
import fc from 'fast-check';

/**
 * Shared settings of the property-based fuzz tests (`test/unit/fuzz-*.test.ts`). One fixed seed, so CI
 * runs the same inputs every time; `DOCQA_FUZZ_SEED` replays another seed (a failure prints its seed and
 * path), `DOCQA_FUZZ_SCALE` multiplies every run count for a longer local search.
 */
export const FUZZ_SEED = Number(process.env.DOCQA_FUZZ_SEED ?? 20_240_624);
const SCALE = Number(process.env.DOCQA_FUZZ_SCALE ?? 1);

/** fast-check parameters for a property tried `numRuns` times (scaled), from the fixed seed. */
export function runs(numRuns: number): fc.Parameters<unknown> {
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(numRuns * SCALE)) };
}

/** The run count a test records in the trial log: what `runs(n)` really tried. */
export function trialsOf(numRuns: number): number {
  return Math.max(1, Math.round(numRuns * SCALE));
}

const OBJECT_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();
const ARRAY_KEYS = Object.getOwnPropertyNames(Array.prototype).sort();

/** No input may add a property to the shared prototypes (`__proto__` / `constructor.prototype` keys). */
export function assertPrototypesClean(): void {
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), OBJECT_KEYS, 'Object.prototype was polluted');
  assert.deepEqual(Object.getOwnPropertyNames(Array.prototype).sort(), ARRAY_KEYS, 'Array.prototype was polluted');
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype.polluted is set');
}

/** Any UTF-16 code unit, lone surrogates and controls included: what a broken model or file can hold. */
export const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
export const anyText = (maxLength = 200) => fc.string({ unit: fc.oneof(codeUnit, fc.constantFrom('\n', ' ', '"', '\\', '{', '}', '[', ']', ':')), maxLength });

/** Keys that attack object handling: prototype keys, and ordinary ones. */
export const hostileKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', ''), fc.string({ maxLength: 12 }));

/**
 * Arbitrary JSON text, written by hand so that `__proto__` keys survive as own keys (an object literal
 * or JSON.stringify would drop or hide them), with huge and odd numbers and lone surrogates in strings.
 */
export const hostileJson: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('null', 'true', 'false', '0', '-0', '1e308', '-1e308', '1e400', '9007199254740993', '-1', '0.5', '"NaN"', '"Infinity"', '""', '"-1"'),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
    fc.integer().map(String),
    fc.string({ unit: codeUnit, maxLength: 20 }).map((s) => JSON.stringify(s)),
    fc.array(tie('value'), { maxLength: 5 }).map((xs) => `[${xs.join(',')}]`),
    fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 5 }).map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).value;

/** A JSON object text with hostile members merged into a valid object's text (at the front: `{` + members + `,` + rest). */
export function withMembers(validJson: string, members: ReadonlyArray<readonly [string, string]>): string {
  if (!members.length) return validJson;
  const body = validJson.trim().slice(1);
  const extra = members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',');
  return body.trim() === '}' ? `{${extra}}` : `{${extra},${body}`;
}

const VALUE_SLOT = '\u0001fuzz-value\u0001';
const KEY_SLOT = '\u0001fuzz-key\u0001';

/**
 * A valid JSON value, mutated once at a random depth: a member or item replaced by hostile JSON,
 * deleted, or a hostile key added. Written as text, so `__proto__` keys and numbers like `1e400` survive.
 */
export function mutatedJson(sample: unknown): fc.Arbitrary<string> {
  return fc.record({ path: fc.array(fc.nat(), { maxLength: 5 }), op: fc.constantFrom('replace', 'delete', 'add'), key: hostileKey, value: hostileJson }).map(({ path, op, key, value }) => {
    const root = JSON.parse(JSON.stringify(sample)) as unknown;
    let parent: Record<string, unknown> | unknown[] | null = null;
    let slot = '';
    let node: unknown = root;
    for (const p of path) {
      if (!node || typeof node !== 'object') break;
      const keys = Object.keys(node);
      if (!keys.length) break;
      parent = node as Record<string, unknown>;
      slot = keys[p % keys.length]!;
      node = (node as Record<string, unknown>)[slot];
    }
    if (op === 'replace' && parent) (parent as Record<string, unknown>)[slot] = VALUE_SLOT;
    else if (op === 'delete' && parent) {
      if (Array.isArray(parent)) parent.splice(Number(slot), 1);
      else delete parent[slot];
    } else if (node && typeof node === 'object' && !Array.isArray(node)) (node as Record<string, unknown>)[KEY_SLOT] = VALUE_SLOT;
    else return value;
    // Function replacers: a `$` in the key or value is text, not a replacement pattern.
    return JSON.stringify(root).replace(JSON.stringify(KEY_SLOT), () => JSON.stringify(key)).replace(JSON.stringify(VALUE_SLOT), () => value);
  });
}

/** Bytes a damaged file may hold: the valid bytes cut short, bytes flipped, or random bytes. */
export function damagedBytes(valid: Uint8Array): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    fc.nat(Math.max(0, valid.length - 1)).map((n) => valid.slice(0, n)),
    fc.array(fc.tuple(fc.nat(Math.max(0, valid.length - 1)), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).map((flips) => {
      const b = Uint8Array.from(valid);
      for (const [at, v] of flips) b[at] = v;
      return b;
    }),
    fc.uint8Array({ maxLength: 256 }),
  );
}

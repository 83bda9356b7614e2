import type { z } from 'zod';

/** What a setting's zod schema says about its values, read once from the schema's definition. */
export interface SchemaInfo {
  kind: 'number' | 'string' | 'enum' | 'boolean' | 'array';
  integer: boolean;
  nullable: boolean;
  /** Smallest number accepted (an exclusive bound on a whole number made inclusive: > 0 is ≥ 1). */
  minimum: number | null;
  minLength: number | null;
  /** `url` for a URL string. */
  format: string | null;
  /** The values of an enum. */
  values: readonly string[] | null;
  /** The schema's own default, when it has one. */
  hasDefault: boolean;
  default: unknown;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  defaultValue?: unknown;
  checks?: Array<{ _zod: { def: { check: string; value?: number; inclusive?: boolean; minimum?: number; format?: string } } }>;
  entries?: Record<string, string>;
  format?: string;
}

const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

export function schemaInfo(schema: z.ZodType): SchemaInfo {
  const info: SchemaInfo = { kind: 'string', integer: false, nullable: false, minimum: null, minLength: null, format: null, values: null, hasDefault: false, default: undefined };
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (def.type === 'default' || def.type === 'prefault') {
      if (!info.hasDefault) {
        info.hasDefault = true;
        info.default = typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
      }
    } else if (def.type === 'nullable') info.nullable = true;
    else if (def.type !== 'optional') break;
    s = def.innerType!;
  }
  const def = defOf(s);
  if (def.format) info.format = def.format;
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'number_format' && (d.format === 'safeint' || d.format === 'int32')) info.integer = true;
    if (d.check === 'string_format' && d.format) info.format = d.format;
    if (d.check === 'min_length' && d.minimum !== undefined) info.minLength = d.minimum;
  }
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'greater_than' && d.value !== undefined) info.minimum = d.inclusive ? d.value : info.integer ? Math.floor(d.value) + 1 : d.value;
  }
  switch (def.type) {
    case 'number':
      info.kind = 'number';
      break;
    case 'enum':
      info.kind = 'enum';
      info.values = Object.values(def.entries ?? {});
      break;
    case 'boolean':
      info.kind = 'boolean';
      break;
    case 'array':
      info.kind = 'array';
      break;
    case 'string':
      info.kind = 'string';
      break;
    default:
      throw new Error(`a setting's schema must be a number, string, enum, boolean or array (with default/nullable), not ${def.type}`);
  }
  return info;
}

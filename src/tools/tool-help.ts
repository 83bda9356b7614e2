import { z } from 'zod';
import { TOOLS } from './registry';
import type { Tool } from './tool';

/** A property of a tool input's JSON Schema, as far as the help reads it. */
interface Property {
  type?: string;
  enum?: unknown[];
  items?: Property;
  minItems?: number;
  minLength?: number;
  description?: string;
}

/** A field's type in words: `string`, `string[] (1 or more)`, `"zh" | "en"`. */
function typeWords(p: Property): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (p.type === 'array') return `${p.items ? typeWords(p.items) : 'value'}[]${p.minItems ? ` (${p.minItems} or more)` : ''}`;
  return `${p.type ?? 'value'}${p.type === 'string' && p.minLength ? ' (not empty)' : ''}`;
}

/** One tool's input in words: its fields (type, required or not, what they mean) and its examples, all from its schema. */
export function toolInputHelp(tool: Tool): string {
  const schema = z.toJSONSchema(tool.input) as { properties?: Record<string, Property>; required?: string[]; examples?: unknown[] };
  const fields = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const width = Math.max(0, ...fields.map(([name]) => name.length));
  const lines = [`${tool.name} — ${tool.description}`];
  if (!fields.length) lines.push('  (no fields)');
  for (const [name, p] of fields) lines.push(`  ${name.padEnd(width)}  ${typeWords(p)}, ${required.has(name) ? 'required' : 'optional'}${p.description ? ` — ${p.description}` : ''}`);
  for (const example of schema.examples ?? []) lines.push(`  e.g. docqa tool ${tool.name} '${JSON.stringify(example)}'`);
  return lines.join('\n');
}

/** The tools and their inputs, for `docqa tool --help`: generated from the schemas the tools validate with. */
export function toolsHelp(): string {
  return `\nTools and their input fields (a JSON object; unknown fields are refused):\n\n${TOOLS.map(toolInputHelp).join('\n\n')}\n`;
}

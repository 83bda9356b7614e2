import type { z } from 'zod';

/**
 * What is wrong with a setting's value, as the end of a sentence that starts with the setting's name
 * (`docqa.budgets.maxToolCalls must be at least 0`, `DOCQA_KEEP_TRACES must be at least 1`): both hosts
 * word a zod issue the same way, each with its own names.
 */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      if (issue.origin === 'array') return `must have at least ${issue.minimum} entries`;
      return issue.inclusive ? `must be at least ${issue.minimum}` : `must be greater than ${issue.minimum}`;
    case 'too_big':
      return issue.inclusive ? `must be at most ${issue.maximum}` : `must be less than ${issue.maximum}`;
    case 'invalid_type':
      if (input === undefined) return 'must be set';
      if (issue.expected === 'int') return 'must be a whole number';
      return `must be ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}, not ${JSON.stringify(input)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(input)}`;
    case 'invalid_union':
      if ('options' in issue && Array.isArray(issue.options)) return `must be one of ${issue.options.map((v: unknown) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(input)}`;
      return 'is not valid';
    case 'invalid_format':
      return issue.format === 'url' ? `must be a URL (https://…), not ${JSON.stringify(input)}` : `must be a valid ${issue.format}`;
    default:
      return issue.message;
  }
}

export type Tree = Record<string, unknown>;

export function setAt(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree;
  for (const part of path.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null) node[part] = {};
    node = node[part] as Tree;
  }
  node[path[path.length - 1]!] = value;
}

export function getAt(tree: unknown, path: readonly string[]): unknown {
  let node = tree;
  for (const part of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Tree)[part];
  }
  return node;
}

export function deleteAt(tree: Tree, path: readonly string[]): void {
  const parent = getAt(tree, path.slice(0, -1));
  if (typeof parent === 'object' && parent !== null) delete (parent as Tree)[path[path.length - 1]!];
}

export const samePath = (a: readonly PropertyKey[], b: readonly PropertyKey[]) => a.length === b.length && a.every((p, i) => p === b[i]);

import type { z } from 'zod';

/** A text in both languages the product speaks. */
export interface Words {
  en: string;
  zh: string;
}

/** How the VS Code extension offers a setting. */
export interface VscodeSetting {
  /** Its key in the Settings editor and settings.json. */
  key: `docqa.${string}`;
  /**
   * `application`: only the user's own settings may set it (where requests and keys go: a workspace
   * must not redirect them). Absent: any scope, a workspace's settings too.
   */
  scope?: 'application';
  /**
   * Restricted Mode ignores the value an untrusted workspace sets. Default: every setting a workspace may
   * set (no `application` scope) is restricted.
   */
  restricted?: boolean;
}

/**
 * One setting, declared once: where its value lives in AppSettings, its type and default (a zod schema:
 * either written here or a component's own field, e.g. `Budgets.shape.max_tool_calls`, so that the
 * component that uses it holds the default), the CLI's environment variable, the VS Code key, and what
 * it means in English and Chinese. package.json's `contributes.configuration`, its Restricted Mode list
 * and the nls files are generated from these rows (`npm run gen:manifest`).
 */
export interface Setting<P extends string = string, S extends z.ZodType = z.ZodType> {
  /**
   * Dotted path in AppSettings (`run.budgets.max_tool_calls`), or under `host.` for a setting a host
   * reads itself, outside AppSettings (the extension's OTLP endpoint).
   */
  path: P;
  schema: S;
  /** The CLI's environment variable; absent when only the extension offers it. */
  env?: `DOCQA_${string}`;
  /** The extension's setting; absent when only the CLI offers it. */
  vscode?: VscodeSetting;
  description: Words;
  /** For an enum: what each value means (the Settings editor shows it beside the value). */
  values?: Record<string, Words>;
  /** Changing it makes the built index stale (other vectors, blocks or files): the extension says a rebuild is needed. */
  rebuild?: true;
  /**
   * What the setting holds when it is not in use (the embedding endpoint while keyword-only): its default
   * in package.json. A setting with such an empty value carries no constraint VS Code would flag on it
   * (format, minLength).
   */
  unset?: unknown;
}

/** A row the extension offers. */
export type VscodeRow = Setting & { vscode: VscodeSetting };

export const vscodeRows = (rows: readonly Setting[]): VscodeRow[] => rows.filter((r): r is VscodeRow => r.vscode !== undefined);

/** A row of the table, its path kept as a literal type so that AppSettings' type follows from the table. */
export function setting<const P extends string, S extends z.ZodType>(row: Setting<P, S>): Setting<P, S> {
  return row;
}

/** The key under which a dotted path's last part lives in its group, when the path is directly in `group`. */
type DirectLeaf<P, G extends string> = P extends `${G}.${infer L}` ? (L extends `${string}.${string}` ? never : L) : never;

/** Where a host's own settings live (not in AppSettings). */
export const HOST_GROUP = 'host';

/** The zod shape of the rows directly under `group` (`trace.keep` is in `trace`, `run.budgets.max_tool_calls` is not in `run`). */
export type GroupShape<R extends readonly Setting[], G extends string> = { [S in R[number] as DirectLeaf<S['path'], G>]: S['schema'] };

export function groupShape<const R extends readonly Setting[], const G extends string>(rows: R, group: G): GroupShape<R, G> {
  const shape: Record<string, z.ZodType> = {};
  for (const row of rows) {
    if (!row.path.startsWith(`${group}.`)) continue;
    const leaf = row.path.slice(group.length + 1);
    if (!leaf.includes('.')) shape[leaf] = row.schema;
  }
  return shape as GroupShape<R, G>;
}

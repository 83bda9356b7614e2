import { z } from 'zod';
import { Budgets } from './budget';

/**
 * When collection stops without the model asking (seed §5–§9): this many tool results in a row rated as
 * adding nothing new, or this many progress-protocol violations in a row. The defaults are written here
 * only; the settings table (src/app/settings-table) points at these fields.
 */
export const Thresholds = z.object({
  no_gain: z.number().int().min(1).default(2),
  violations: z.number().int().min(1).default(2),
});
export type Thresholds = z.infer<typeof Thresholds>;

/** What a host configures of one run of the loop, handed to it as one value: its budgets and stopping thresholds. */
export const RunLimits = z.object({
  budgets: Budgets.prefault({}),
  thresholds: Thresholds.prefault({}),
});
export type RunLimits = z.infer<typeof RunLimits>;

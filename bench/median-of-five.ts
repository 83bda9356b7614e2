import { percentile } from './qa-set';

/**
 * Samples of a load and of its raw-read floor, in the index and scale groups: one sample moved by 2×
 * between idle runs at 10k and by half at 100k, and the best of two was as often the best of two
 * outliers (a read into memory already faulted in took 11 ms, into fresh memory 30), so both sides of
 * a ratio are the median of five.
 */
export const ROUNDS = 5;

export async function medianOfFive(f: () => number | Promise<number>): Promise<number> {
  const s: number[] = [];
  for (let i = 0; i < ROUNDS; i++) s.push(await f());
  return percentile(s, 50);
}

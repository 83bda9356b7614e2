/**
 * A journey is a list of named steps. Each step ends with a screenshot, `NN-name.png` in the run's folder
 * under `.e2e/screenshots/<run>/`; a failing step is reported by number and name, its screenshot
 * (`NN-name-FAILED.png`) is kept, and the journey stops there.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { SCREENSHOTS_DIR } from './paths';

export interface StepRecord {
  readonly index: number;
  readonly name: string;
  readonly ms: number;
  readonly screenshot: string | null;
}

export class StepFailure extends Error {
  constructor(
    readonly step: string,
    readonly screenshot: string | null,
    cause: unknown,
  ) {
    super(`e2e step ${step} failed: ${cause instanceof Error ? cause.message : String(cause)}${screenshot ? `\n  screenshot: ${screenshot}` : ''}`, { cause });
    this.name = new.target.name;
  }
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);

export class Journey {
  readonly dir: string;
  readonly records: StepRecord[] = [];
  private page: Page | null = null;

  /** `run` names the folder, e.g. `2026-12-01T09-30-00-first-journey`. */
  constructor(run: string) {
    this.dir = path.join(SCREENSHOTS_DIR, run);
    fs.mkdirSync(this.dir, { recursive: true });
  }

  /** The page screenshots are taken of (none before the workbench is open). */
  usePage(page: Page): void {
    this.page = page;
  }

  private async screenshot(file: string): Promise<string | null> {
    if (!this.page || this.page.isClosed()) return null;
    const target = path.join(this.dir, file);
    try {
      await this.page.screenshot({ path: target, timeout: 10_000 });
      return target;
    } catch (e) {
      console.error(`e2e: screenshot ${target} failed: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  }

  async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const index = this.records.length + 1;
    const label = `${String(index).padStart(2, '0')} "${name}"`;
    const base = `${String(index).padStart(2, '0')}-${slug(name)}`;
    const started = Date.now();
    let result: T;
    try {
      result = await fn();
    } catch (e) {
      const shot = await this.screenshot(`${base}-FAILED.png`);
      const failure = new StepFailure(label, shot, e);
      console.error(failure.message);
      throw failure;
    }
    const ms = Date.now() - started;
    const shot = await this.screenshot(`${base}.png`);
    this.records.push({ index, name, ms, screenshot: shot });
    console.log(`e2e step ${label}: ok in ${ms} ms`);
    return result;
  }
}

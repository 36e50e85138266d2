// Real Chromium for page tests: Debian's `chromium` package driven by playwright-core (nothing downloaded).
// Without the binary, tests declared with `browserTest` are reported as skipped, with the reason in the title.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import test, { type ExecutionContext, type ImplementationFn } from 'ava';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../pipelines/reports/pdf.ts';

const require = createRequire(import.meta.url);

/** Where the browser is: CHROMIUM_PATH, or the Debian package's launcher. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why browser tests cannot run here, or null when they can. */
export const browserUnavailable: string | null = existsSync(CHROMIUM_PATH) ? null : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`;

/** `test`, or `test.skip` with the reason in the title when Chromium is missing. */
export function browserTest(title: string, fn: ImplementationFn<[]>): void {
  if (browserUnavailable) test.skip(`${title} [skipped: ${browserUnavailable}]`, fn);
  else test.serial(title, fn);
}

/** A headless Chromium with the flags that make it quiet and offline-friendly. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

export const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 900 },
} as const;

let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** Run axe-core (WCAG 2 A/AA rules) in a page or frame; returns the violations. */
export async function axe(target: Page | Frame): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, so the page's CSP (script-src 'self') does not apply.
  await target.evaluate(axeSource);
  return target.evaluate(async () => {
    const r = await (globalThis as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** Fail the test on serious or critical axe violations (log the rest). */
export function assertAccessible(t: ExecutionContext, violations: AxeViolation[], where: string): void {
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of violations) t.log(`${where}: axe ${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  t.deepEqual(
    serious.map((v) => `${v.id}: ${v.help}`),
    [],
    `${where} has no serious accessibility violations`,
  );
}

/**
 * Debian's Chromium, headless, driven by playwright-core, for the web view's tests. The project's setup
 * (`.ci/run`) installs it with apt; the cluster's serving certificate is signed by the cluster's own CA,
 * which the browser does not know, so certificate errors are ignored for these pages only.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** docs/screenshots in the repository (the tests run from dist/test/e2e). */
export const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'screenshots');

export async function launchChromium(): Promise<Browser> {
  // As root (CI, containers) Chromium refuses to start with its sandbox.
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args });
}

export async function uiContext(browser: Browser, colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> {
  return browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1440, height: 900 }, colorScheme });
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, name);
}

/** A page of the web view opened with the login link, once `ready` (a selector) shows. */
export async function openUi(browser: Browser, link: string, ready: string, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await (await uiContext(browser, colorScheme)).newPage();
  await page.goto(link);
  await page.locator(ready).first().waitFor();
  return page;
}

/** The visible texts of the elements a selector matches, whitespace collapsed as a reader sees them. */
export async function texts(page: Page, selector: string): Promise<string[]> {
  return (await page.locator(selector).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

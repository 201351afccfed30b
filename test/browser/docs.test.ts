/**
 * /docs offline: Debian's chromium loads the API reference from `wrangler dev` with every
 * request outside 127.0.0.1 blocked, and must render every operation of /openapi.json.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type WranglerDev, startWranglerDev } from "./wrangler-dev";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = suiteNeeds("/docs in chromium, offline", import.meta.url, "chromium", existsSync(CHROMIUM));

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

describe.skipIf(!hasChromium)("/docs in chromium, offline", () => {
  let dev: WranglerDev;
  let browser: Browser;

  beforeAll(async () => {
    dev = await startWranglerDev("docs-browser-test-admin-token");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
  });

  it("renders every operation of /openapi.json with nothing loaded from elsewhere", async () => {
    const spec = (await (await fetch(`${dev.base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(spec.paths).flatMap((item) => Object.keys(item).filter((k) => METHODS.has(k)));
    expect(operations.length).toBeGreaterThan(20);

    const page = await browser.newPage();
    const blocked: string[] = [];
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    await page.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === "127.0.0.1" || url.protocol === "data:") return route.continue();
      blocked.push(url.href);
      return route.abort();
    });

    const res = await page.goto(`${dev.base}/docs`);
    expect(res?.status()).toBe(200);
    await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
    expect(await page.locator(".opblock").count()).toBe(operations.length);
    expect(await page.locator(".opblock-summary-path").allTextContents()).toContain("/v1/projects/{slug}/passes");
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });
});

/**
 * The pages in a real browser: Debian's chromium, driven by playwright-core, loads them from
 * `wrangler dev` after a small trace was posted and the cron ran. The numbers shown must be
 * the API's, nothing may come from outside, and any console error fails the test.
 * Screenshots go to test-artifacts/screenshots/.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, type Page, chromium } from "playwright-core";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import type { SuccessBody } from "../support/api-types";
import { EVIL_TEAM, SPANS, postSpans, postTrace } from "./trace";
import { type WranglerDev, startWranglerDev } from "./wrangler-dev";

const CHROMIUM = "/usr/bin/chromium";
const ADMIN_TOKEN = "browser-test-admin-token";
const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url).pathname;
const SCREENSHOTS = join(ARTIFACTS, "screenshots");

// Debian's chromium: see docs/pages.md.
const hasChromium = suiteNeeds("the web pages in chromium, served by wrangler dev", import.meta.url, "chromium", existsSync(CHROMIUM));

describe.skipIf(!hasChromium)("the web pages in chromium, served by wrangler dev", () => {
  let dev: WranglerDev;
  let context: BrowserContext;
  let userDataDir: string;
  let slug: string;
  /** Console errors, uncaught page errors, dialogs (an alert() ran) and requests to elsewhere. */
  const problems: string[] = [];
  /** Console errors a test expects (the 404 page's own status is logged as one). */
  let expectedErrors: RegExp[] = [];

  /** A public read, typed by the OpenAPI document like `request` (test/support/api.ts). */
  const api = async <P extends string>(path: P) => {
    const res = await fetch(`${dev.base}${path}`);
    expect(res.status, path).toBe(200);
    return (await res.json()) as SuccessBody<"GET", P>;
  };

  beforeAll(async () => {
    dev = await startWranglerDev(ADMIN_TOKEN);
    slug = await postTrace(dev.base, ADMIN_TOKEN);
    await postSpans(dev.base, ADMIN_TOKEN);
    // Every job once (rescale, then the KV snapshots), as in the README's walk-through.
    expect(await (await fetch(`${dev.base}/cdn-cgi/handler/scheduled`)).text()).toBe("ok");
    await until(async () => {
      const listed = (await api("/v1/projects")).projects;
      return [slug, ...Object.keys(SPANS)].every((s) => listed.some((p) => p.slug === s && p.total_credit > 0));
    });

    await mkdir(SCREENSHOTS, { recursive: true });
    userDataDir = await mkdtemp(join(tmpdir(), "cobblestone-chromium-"));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: 1100, height: 900 },
    });
    const watch = (page: Page) => {
      page.on("console", (m) => {
        if (m.type() === "error" && !expectedErrors.some((re) => re.test(m.text())))
          problems.push(`console error on ${page.url()}: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
      page.on("dialog", async (d) => {
        problems.push(`a dialog opened on ${page.url()}: ${d.message()}`);
        await d.dismiss();
      });
    };
    context.pages().forEach(watch);
    context.on("page", watch);
    // Nothing may be loaded from anywhere but the Worker itself.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(dev.base) || url.startsWith("data:")) return route.continue();
      problems.push(`request to elsewhere: ${url}`);
      return route.abort();
    });
  });

  afterAll(async () => {
    await context?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
    if (dev) {
      await dev.stop();
      await writeFile(join(ARTIFACTS, "wrangler-dev.log"), dev.log());
      // A measurement for the reader, not a test: wrangler's own timing of each page.
      const pages = [...dev.log().matchAll(/GET (\/(?:p\/\S*|central)?) (\d{3})[^(\n]*\((\d+)ms\)/g)].map(
        (m) => `${m[1]} ${m[2]} ${m[3]} ms`,
      );
      if (pages.length > 0) console.log(`page responses timed by wrangler dev:\n  ${pages.join("\n  ")}`);
    }
  });

  /** Opens `path` in a fresh tab; fails on the status or on any problem seen meanwhile. */
  async function open(path: string, status = 200, viewport?: { width: number; height: number }): Promise<Page> {
    const page = await context.newPage();
    // A failing test leaves what the page looked like beside the other screenshots.
    onTestFailed(async ({ task }) => {
      if (page.isClosed()) return;
      const name = `FAILED ${task.name} ${path}`.replace(/[^\w.-]+/g, "_").slice(0, 120);
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    });
    if (viewport) await page.setViewportSize(viewport);
    const res = await page.goto(`${dev.base}${path}`);
    expect(res?.status(), path).toBe(status);
    expect(problems).toEqual([]);
    return page;
  }

  const value = async (page: Page, selector: string) => Number(await page.locator(selector).first().getAttribute("value"));
  const values = async (page: Page, selector: string) =>
    await page.locator(selector).evaluateAll((els) => els.map((e) => Number(e.getAttribute("value"))));
  const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  /** How many days the RAC line of the page's chart has. */
  const chartDays = async (page: Page) =>
    ((await page.locator("svg.chart-svg path.rac").getAttribute("d")) ?? "").split(/[ML]/).filter(Boolean).length;

  /** The days a chart of `window` days shows when the first credit was at `first`: from that day on, a week at least (issue 37, item 6). */
  const expectedChartDays = (first: number, window: number) => {
    const today = Math.floor(Date.now() / 1000 / 86400);
    return Math.min(window, Math.max(7, today - Math.floor(first / 86400) + 1));
  };

  it("/ lists the project with the API's total, without any script", async () => {
    const page = await open("/");
    const list = await api("/v1/projects");
    const demo = list.projects.find((p) => p.slug === slug);
    const row = `tr[data-slug="${slug}"]`;
    expect(await value(page, `${row} data[data-name="total_credit"]`)).toBe(demo!.total_credit);
    expect(await page.locator(`${row} a`).textContent()).toBe("Demo@Home");
    expect(await page.locator("time[data-snapshot-time]").textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await page.evaluate(() => document.scripts.length)).toBe(0);
    await shot(page, "home");
    await page.close();
  });

  it("/p/:slug shows the API's totals, app versions, leaderboards and a drawn chart; the switches are links", async () => {
    const page = await open(`/p/${slug}`);
    const project = await api(`/v1/projects/${slug}`);
    expect(await value(page, '.facts data[data-name="total_credit"]')).toBe(project.total_credit);
    const versions = (await api(`/v1/projects/${slug}/app-versions`)).app_versions;
    expect(await values(page, '#app-versions data[data-name="pfc_n"]')).toEqual(versions.map((v) => v.pfc_n));
    expect(await values(page, '#app-versions data[data-name="pfc_scale"]')).toEqual(versions.map((v) => v.pfc_scale));
    const top = await api(`/v1/projects/${slug}/top/users?limit=10`);
    expect(await values(page, '#top-users data[data-name="total_credit"]')).toEqual(top.users.map((u) => u.total_credit));
    const chart = page.locator("svg.chart-svg");
    const box = await chart.boundingBox();
    expect(box!.width).toBeGreaterThan(500);
    expect(await chart.locator(".bars rect").count()).toBe(3); // three days with passes
    // The first credit was 20 days ago: the 90-day chart starts there (21 days), so do the 365.
    expect(expectedChartDays(project.first_credit_time!, 90)).toBe(21);
    expect(await chartDays(page)).toBe(21);
    await shot(page, "project");

    await page.getByRole("link", { name: "by total" }).click();
    expect(page.url()).toContain("by=total_credit");
    const byTotal = await api(`/v1/projects/${slug}/top/hosts?by=total_credit&limit=10`);
    expect(await values(page, '#top-hosts data[data-name="total_credit"]')).toEqual(byTotal.hosts.map((h) => h.total_credit));
    await page.getByRole("link", { name: "365", exact: true }).click();
    expect(page.url()).toContain("days=365");
    expect(await chartDays(page)).toBe(21);
    expect(await page.locator("figcaption").textContent()).toContain("no credit before it in the last 365 days");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a user's page: the API's numbers, the 30-day switch, and the team (named <script>…) shown as text", async () => {
    const projectPage = await open(`/p/${slug}`);
    await projectPage.locator("#top-users a", { hasText: "Ada" }).click();
    expect(new URL(projectPage.url()).pathname).toBe(`/p/${slug}/users/7`);
    const page = projectPage;
    const user = await api(`/v1/projects/${slug}/users/7`);
    expect(await value(page, '.facts data[data-name="total_credit"]')).toBe(user.total_credit);
    const rac = await value(page, '.facts data[data-name="recent_average_credit"]');
    expect(rac).toBeCloseTo(user.recent_average_credit, 3);
    expect(await values(page, '#app-credit data[data-name="total_credit"]')).toEqual(user.apps.map((a) => a.total_credit));
    expect(await chartDays(page)).toBe(21); // Ada's first credit: 20 days ago
    await shot(page, "user");

    await page.getByRole("link", { name: "30", exact: true }).click();
    expect(page.url()).toContain("days=30");
    expect(await chartDays(page)).toBe(21);
    const history = await api(`/v1/projects/${slug}/users/7/history?days=30`);
    expect(await page.locator("svg.chart-svg .bars rect").count()).toBe(history.days.filter((d) => d.credit > 0).length);

    await page.locator("#owner").click();
    expect(new URL(page.url()).pathname).toBe(`/p/${slug}/teams/3`);
    expect(await page.locator("h1").textContent()).toBe(EVIL_TEAM);
    expect(await page.evaluate(() => document.scripts.length)).toBe(0);
    const team = await api(`/v1/projects/${slug}/teams/3`);
    expect(await value(page, '.facts data[data-name="total_credit"]')).toBe(team.total_credit);
    await shot(page, "team");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a host's page links its user", async () => {
    const page = await open(`/p/${slug}/hosts/10`);
    const host = await api(`/v1/projects/${slug}/hosts/10`);
    expect(await page.locator("h1").textContent()).toBe("lab-pc");
    expect(await value(page, '.facts data[data-name="total_credit"]')).toBe(host.total_credit);
    expect(await page.locator("#owner").getAttribute("href")).toBe(`/p/${slug}/users/7`);
    await shot(page, "host");
    await page.close();
  });

  describe.each(Object.entries(SPANS))("%s: a project with data on days %j ago", (span, days) => {
    it("charts from the first credit (a week at least), with bars a reader can see, and says so", async () => {
      const project = await api(`/v1/projects/${span}`);
      const first = project.first_credit_time!;
      expect(Math.floor(Date.now() / 1000 / 86400) - Math.floor(first / 86400)).toBe(days[0]);
      for (const path of [`/p/${span}`, `/p/${span}/hosts/10`]) {
        for (const window of [30, 90, 365]) {
          const page = await open(`${path}?days=${window}`);
          const shown = expectedChartDays(first, window);
          expect(await chartDays(page), `${path} ${window}`).toBe(shown);
          // Each day with a pass in the window is a bar, as wide as a 1/shown slot allows.
          const plotWidth = 640 - 64 - 12;
          const bars = page.locator("svg.chart-svg .bars rect");
          expect(await bars.count(), `${path} ${window}`).toBe(days.filter((d) => d < shown).length);
          for (const w of await bars.evaluateAll((els) => els.map((e) => Number(e.getAttribute("width"))))) {
            // chart-scale.ts: a gap between bars while a slot is 4 units wide or more.
            expect(w).toBeCloseTo((plotWidth / shown) * (plotWidth / shown >= 4 ? 0.8 : 1), 0);
          }
          // The first credit's bar is the first slot's when the chart starts at it.
          const caption = (await page.locator("figcaption").textContent()) ?? "";
          if (shown < window) {
            expect(caption).toContain(`no credit before it in the last ${window} days`);
            if (days[0] >= 6) {
              const x = Number(await bars.first().getAttribute("x"));
              expect(x).toBeLessThan(64 + plotWidth / shown);
            }
          } else {
            expect(caption).not.toContain("The chart starts at");
          }
          if (window === 90) await shot(page, `${span}${path.includes("hosts") ? "-host" : ""}`);
          await page.close();
        }
      }
    });
  });

  it("the project page says one thing about neutrality, explains the version RAC, and links the API docs", async () => {
    const page = await open(`/p/${slug}`);
    const neutrality = page.locator("#neutrality");
    expect(await neutrality.locator("p").count()).toBe(1);
    expect(await neutrality.textContent()).toContain("Not compared yet");
    expect(await neutrality.textContent()).not.toContain("1.00");
    expect(await page.locator("#app-versions th", { hasText: "Version RAC" }).getAttribute("title")).toContain(
      "BOINC's own recent average",
    );
    expect(await page.locator("#version-rac-note").textContent()).toContain("not credit per day of any host or user");
    await page.getByRole("link", { name: "the API" }).click();
    expect(new URL(page.url()).pathname).toBe("/docs");
    await page.close();
    // "all projects" is the list at / wherever it appears (here: the 404 page).
    expectedErrors = [/status of 404/];
    try {
      const missing = await open(`/p/${slug}/users/999`, 404);
      expect(await missing.getByRole("link", { name: "all projects" }).getAttribute("href")).toBe("/");
      await missing.close();
    } finally {
      expectedErrors = [];
    }
  });

  it("fits a phone's screen: nothing wider than the viewport", async () => {
    for (const [path, name] of [
      [`/p/${slug}`, "project-phone"],
      [`/p/${slug}/users/7`, "user-phone"],
    ] as const) {
      const page = await open(path, 200, { width: 375, height: 812 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
      expect((await page.locator("svg.chart-svg").boundingBox())!.width, path).toBeLessThanOrEqual(375);
      await shot(page, name);
      await page.close();
    }
  });

  it("/central shows the plan-class table (none published yet: BOINC's default)", async () => {
    const page = await open("/central");
    const table = await api("/v1/plan-classes");
    if (table.version === null) expect(await page.locator("#no-table").textContent()).toContain("0.1 applies");
    else expect(await values(page, '#plan-classes data[data-name="scale"]')).toEqual(table.plan_classes.map((r) => r.scale));
    await shot(page, "central");
    await page.close();
  });

  it("an unknown user gets the friendly 404 page", async () => {
    // Chromium logs a document's 404 status as a console error: that one is expected here.
    expectedErrors = [/status of 404/];
    try {
      const page = await open(`/p/${slug}/users/999`, 404);
      expect(await page.locator("h1").textContent()).toBe("Not found");
      expect(await page.locator("main").textContent()).toContain("There is no user 999 in Demo@Home");
      await shot(page, "not-found");
      await page.close();
    } finally {
      expectedErrors = [];
    }
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the cron's snapshots");
    await new Promise((r) => setTimeout(r, 200));
  }
}

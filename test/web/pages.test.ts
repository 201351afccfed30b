/**
 * The public pages, rendered by the Worker: the numbers they show are the API's numbers,
 * charts are inline SVG, unknown things get a friendly 404 page, user strings are text, and
 * pages carry the JSON reads' cache validators.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { errorOf, setupProject } from "../support/api-helpers";
import { decayed, daysAgo, passFor } from "../reads/fixtures";
import { ADMIN_TOKEN, request } from "../support/api";
import { ORDINARY_NOW, withFixedClock } from "../support/clock";
import { runCron } from "../support/cron";
import { MIN_CHART_DAYS } from "../../src/web/chart-days";
import { formatCount, formatCredit, formatRate, formatStatistic } from "../../src/web/format";
import { dataOf, firstData, getPage, hrefs, section } from "./html";

const EVIL = "<script>alert(1)</script>";
const api = <P extends string>(path: P) => request("GET", `/v1${path}`).then((r) => r.body);

/** A project with user 10 (team 3, named EVIL) on host 10, credited three days ago and yesterday. */
let slug: string;
let token: string;
// A fixed day (the clock runs on from noon: the cron runs more than once), so the charts'
// day buckets never depend on when the suite runs.
withFixedClock(ORDINARY_NOW, true);
beforeAll(async () => {
  const p = await setupProject("web");
  slug = p.slug;
  token = p.token;
  await p.api.ok("PUT", "/teams/3", { name: EVIL });
  await p.api.ok("PUT", "/users/10", { name: "Ada", team_id: 3 });
  const who = { host: 10, user: 10, team: 3 };
  await p.api.ok("POST", "/passes", passFor(daysAgo(3), 1, who, 2));
  await p.api.ok("POST", "/passes", passFor(daysAgo(1), 3, who));
  await p.api.ok("POST", "/passes", passFor(daysAgo(1), 4, { host: 11, user: 11 }));
  // Per-app credit is folded by the hourly job (docs/storage.md); then the snapshots.
  await runCron("50 * * * *");
  await runCron();
});

describe("/ (the projects)", () => {
  it("lists every project with the API's totals, and when the data was taken", async () => {
    const page = await getPage("/");
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(page.html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(page.html).toContain('name="viewport"');
    const list = await api("/projects");
    const row = page.html.slice(page.html.indexOf(`data-slug="${slug}"`));
    const total = firstData(row, "total_credit");
    const mine = list.projects.find((p) => p.slug === slug);
    expect(total.value).toBe(mine!.total_credit);
    expect(total.text).toBe(formatCredit(mine!.total_credit));
    expect(hrefs(row)).toContain(`/p/${slug}`);
    expect(page.html).toMatch(/Data as of <time[^>]*>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
  });
});

describe("/ after a project is created", () => {
  it("lists it once the minute cron ran, before it has any app or pass (creating it marks it)", async () => {
    const fresh = `fresh-${Math.random().toString(36).slice(2, 8)}`;
    expect((await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug: fresh, name: "Fresh@Home" } })).status).toBe(201);
    await runCron();
    const page = await getPage("/");
    expect(hrefs(page.html)).toContain(`/p/${fresh}`);
    expect((await api("/projects")).projects.map((p) => p.slug)).toContain(fresh);
  });
});

describe("/p/:slug (a project)", () => {
  it("shows the API's totals, app versions with their scales and leaderboards", async () => {
    const page = await getPage(`/p/${slug}`);
    expect(page.status).toBe(200);
    const project = await api(`/projects/${slug}`);
    const facts = page.html.slice(page.html.indexOf('class="facts"'));
    expect(firstData(facts, "total_credit").value).toBe(project.total_credit);
    expect(firstData(facts, "total_credit").text).toBe(formatCredit(project.total_credit));
    const rac = firstData(facts, "recent_average_credit");
    expect(rac.value).toBeCloseTo(project.recent_average_credit, 6);
    expect(rac.text).toBe(formatRate(rac.value));
    expect(facts).toContain(`<dd>${formatCount(project.users)}</dd>`);
    // "Since" is the first credit (three days ago), not the day the project was created (today).
    expect(project.first_credit_time).toBe(daysAgo(3));
    expect(facts).toContain(`<dt>Since</dt><dd>${new Date(daysAgo(3) * 1000).toISOString().slice(0, 10)}</dd>`);

    const { app_versions } = await api(`/projects/${slug}/app-versions`);
    const table = section(page.html, "app-versions");
    expect(dataOf(table, "pfc_n").map((d) => d.value)).toEqual(app_versions.map((v) => v.pfc_n));
    expect(dataOf(table, "pfc_avg").map((d) => d.value)).toEqual(app_versions.map((v) => v.pfc_avg));
    expect(dataOf(table, "pfc_avg").map((d) => d.text)).toEqual(app_versions.map((v) => formatStatistic(v.pfc_avg)));
    expect(dataOf(table, "pfc_scale").map((d) => d.value)).toEqual(app_versions.map((v) => v.pfc_scale));
    expect(table).toContain("intel"); // app version 2's plan class

    // Top users by RAC, as the leaderboard endpoint ranks them.
    const top = await api(`/projects/${slug}/top/users?limit=10`);
    const users = section(page.html, "top-users");
    expect([...users.matchAll(/<tr data-id="(\d+)"/g)].map((m) => Number(m[1]))).toEqual(top.users.map((u) => u.id));
    expect(dataOf(users, "total_credit").map((d) => d.value)).toEqual(top.users.map((u) => u.total_credit));
    expect(hrefs(users)).toContain(`/p/${slug}/users/10`);
    expect(page.html).toContain("<svg");
  });

  it("switches the leaderboards to total credit and the chart's window with plain links", async () => {
    const page = await getPage(`/p/${slug}?by=total_credit&days=30`);
    const links = hrefs(page.html);
    expect(links).toContain(`/p/${slug}?by=expavg_credit&days=30`);
    expect(links).toContain(`/p/${slug}?by=total_credit&days=365`);
    const top = await api(`/projects/${slug}/top/hosts?by=total_credit&limit=10`);
    const hosts = section(page.html, "top-hosts");
    expect(dataOf(hosts, "total_credit").map((d) => d.value)).toEqual(top.hosts.map((h) => h.total_credit));
  });
});

describe("what the project page says (issue 37, items 7 to 9)", () => {
  it("says one thing when the project is not compared, explains the version RAC, and links the API docs", async () => {
    const page = await getPage(`/p/${slug}`);
    const at = page.html.indexOf('id="neutrality"');
    expect(at).toBeGreaterThan(0);
    const neutrality = page.html.slice(at, page.html.indexOf("</section>", at));
    // No neutrality index here: one sentence, and no scale to read a missing index on.
    expect(neutrality).toContain("Not compared yet");
    expect(neutrality).not.toContain("1.00");
    expect(hrefs(neutrality)).toEqual(["/central/neutrality"]);
    // The app versions' RAC is named as BOINC's per-version average and explained under the table.
    expect(section(page.html, "app-versions")).toContain("Version RAC*");
    expect(page.html).toContain("* Version RAC is BOINC&#39;s own recent average for the app version");
    // The footer's "the API" is the docs page; "all projects" means the list at / on every page.
    for (const path of [`/p/${slug}`, `/p/${slug}/users/10`, `/p/${slug}/users/999`, "/central"]) {
      const html = (await getPage(path)).html;
      expect(html, path).toContain('<a href="/docs">the API</a>');
      expect(html, path).not.toContain("/openapi.json");
      for (const m of html.matchAll(/<a href="([^"]*)">all projects<\/a>/g)) expect(m[1], path).toBe("/");
    }
    expect((await getPage(`/p/${slug}/users/999`)).html).toContain('<a href="/">all projects</a>');
  });
});

describe("/p/:slug/{users,hosts,teams}/:id", () => {
  it("a user: the API's total and RAC, credit per app, a chart of 90 days, the team linked", async () => {
    const page = await getPage(`/p/${slug}/users/10`);
    expect(page.status).toBe(200);
    const user = await api(`/projects/${slug}/users/10`);
    const total = firstData(page.html, "total_credit");
    expect(total.value).toBe(user.total_credit);
    expect(total.text).toBe(formatCredit(user.total_credit));
    // RAC decayed to the time of the page: the API's pair decayed to about the same moment.
    expect(firstData(page.html, "recent_average_credit").value).toBeCloseTo(decayed(user, Date.now() / 1000), 6);
    const perApp = section(page.html, "app-credit");
    expect(dataOf(perApp, "total_credit").map((d) => d.value)).toEqual(user.apps.map((a) => a.total_credit));
    expect(hrefs(page.html)).toContain(`/p/${slug}/teams/3`);

    // The chart: 90 days by default, from the first credit on (issue 37, item 6): three days
    // ago, so 4 days, drawn as the chart's minimum of MIN_CHART_DAYS (7) days up to today.
    const history = await api(`/projects/${slug}/users/10/history?days=90`);
    const svg = page.html.slice(page.html.indexOf("<svg"), page.html.indexOf("</svg>"));
    const d = /<path class="rac" d="([^"]*)"/.exec(svg)![1]!;
    expect(MIN_CHART_DAYS).toBe(7);
    expect(d.split(/[ML]/).filter(Boolean)).toHaveLength(7);
    const first = history.days.at(-7)!.date;
    expect(page.html).toContain(`The chart starts at ${first}: no credit before it in the last 90 days.`);
    expect(history.days.slice(0, -7).every((x) => x.credit === 0 && x.expavg_credit === 0)).toBe(true);
    const barTitles = [...svg.matchAll(/<rect[^>]*><title>(\d{4}-\d\d-\d\d): ([^ ]+) credit/g)].map((m) => [m[1], m[2]]);
    const credited = history.days.filter((x) => x.credit > 0).map((x) => [x.date, formatCredit(x.credit)]);
    expect(barTitles).toEqual(credited);
    expect(barTitles).toHaveLength(2);
    expect(hrefs(page.html)).toEqual(expect.arrayContaining([`/p/${slug}/users/10?days=30`, `/p/${slug}/users/10?days=365`]));
  });

  it("30 and 365 days on request; any other window is the default 90", async () => {
    // Host 10's first credit was three days ago: every window starts there (a week at least) and says which window it is.
    const chart = async (q: string) => {
      const html = (await getPage(`/p/${slug}/hosts/10${q}`)).html;
      const days = /<path class="rac" d="([^"]*)"/.exec(html)![1]!.split(/[ML]/).filter(Boolean).length;
      return { days, window: Number(/no credit before it in the last (\d+) days/.exec(html)?.[1]) };
    };
    expect(await chart("?days=30")).toEqual({ days: 7, window: 30 });
    expect(await chart("?days=365")).toEqual({ days: 7, window: 365 });
    expect(await chart("?days=7")).toEqual({ days: 7, window: 90 });
  });

  it("a chart starts at the first credit when that is later than the window's start, and spans the window when not", async () => {
    // Host 20: credit 200 days ago and yesterday. In 90 days its RAC (from 200 days back) is on
    // every day, so the chart spans the 90; in 365 it starts at the first credit: 201 days.
    const p = await setupProject("web-span");
    await p.api.ok("POST", "/passes", passFor(daysAgo(200), 1, { host: 20, user: 20 }));
    await p.api.ok("POST", "/passes", passFor(daysAgo(1), 2, { host: 20, user: 20 }));
    await runCron();
    const html = async (q: string) => (await getPage(`/p/${p.slug}/hosts/20${q}`)).html;
    const points = (page: string) => /<path class="rac" d="([^"]*)"/.exec(page)![1]!.split(/[ML]/).filter(Boolean).length;
    const ninety = await html("");
    expect(points(ninety)).toBe(90);
    expect(ninety).not.toContain("The chart starts at");
    expect(ninety).toContain("credit per day and RAC, last 90 days");
    const year = await html("?days=365");
    expect(points(year)).toBe(201);
    const first = new Date(daysAgo(200) * 1000).toISOString().slice(0, 10);
    expect(year).toContain(`The chart starts at ${first}: no credit before it in the last 365 days.`);
    expect(year).toContain(`credit per day and RAC since ${first}, the first credit`);
  });

  it("a host links its user; a team shows its name as text", async () => {
    const host = await getPage(`/p/${slug}/hosts/10`);
    expect(host.status).toBe(200);
    expect(host.html).toMatch(new RegExp(`<a id="owner" href="/p/${slug}/users/10">Ada</a>`));
    expect(firstData(host.html, "total_credit").value).toBe((await api(`/projects/${slug}/hosts/10`)).total_credit);
    const team = await getPage(`/p/${slug}/teams/3`);
    expect(team.status).toBe(200);
    expect(firstData(team.html, "total_credit").value).toBe((await api(`/projects/${slug}/teams/3`)).total_credit);
  });
});

describe("escaping", () => {
  it("a team named <script>alert(1)</script> shows as text on every page that names it", async () => {
    for (const path of [`/p/${slug}/teams/3`, `/p/${slug}/users/10`, `/p/${slug}`]) {
      const { html } = await getPage(path);
      expect(html, path).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
      expect(html, path).not.toContain(EVIL);
      expect(html, path).not.toMatch(/<script/i);
    }
  });

  it("a project's name is text and a javascript: url is not made a link", async () => {
    const evilSlug = `evil-${Math.random().toString(36).slice(2, 8)}`;
    const created = await request("POST", "/v1/projects", {
      token: ADMIN_TOKEN,
      body: { slug: evilSlug, name: `<img src=x onerror=alert(1)>`, url: "javascript:alert(1)" },
    });
    // The API may refuse such a url; then only the name is tried.
    if (created.status !== 201) {
      expect(created.status).toBe(400);
      expect(
        (await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug: evilSlug, name: "<img src=x onerror=alert(1)>" } }))
          .status,
      ).toBe(201);
    }
    await runCron(); // the list of projects is a snapshot too
    for (const path of ["/", `/p/${evilSlug}`]) {
      const { html } = await getPage(path);
      expect(html, path).toContain("&lt;img src=x onerror=alert(1)&gt;");
      expect(html, path).not.toContain("<img");
      expect(
        hrefs(html).some((h) => h.toLowerCase().startsWith("javascript:")),
        path,
      ).toBe(false);
    }
  });
});

describe("404 pages", () => {
  it("unknown projects, ids and addresses get a friendly HTML page with status 404", async () => {
    for (const path of [
      "/p/no-such-project",
      "/p/NOT_A_SLUG",
      `/p/no-such-project/users/1`,
      `/p/${slug}/users/999`,
      `/p/${slug}/hosts/abc`,
      `/p/${slug}/teams/0`,
      `/p/${slug}/nothing-here`,
    ]) {
      const page = await getPage(path);
      expect(page.status, path).toBe(404);
      expect(page.headers.get("Content-Type"), path).toMatch(/^text\/html/);
      expect(page.html, path).toContain("<h1>Not found</h1>");
      expect(hrefs(page.html), path).toContain("/");
    }
    const missingUser = await getPage(`/p/${slug}/users/999`);
    expect(missingUser.html).toContain("There is no user 999 in");
    expect(hrefs(missingUser.html)).toContain(`/p/${slug}`);
  });

  it("the API's own 404 stays JSON", async () => {
    const res = await request("GET", `/v1/projects/${slug}/users/999`);
    expect(res.status).toBe(404);
    expect(errorOf(res).code).toBe("not_found");
  });
});

describe("caching", () => {
  it("pages carry ETag and Cache-Control; If-None-Match gives 304 until the data changes", async () => {
    for (const path of ["/", `/p/${slug}`, `/p/${slug}/users/10`]) {
      const first = await getPage(path);
      const etag = first.headers.get("ETag");
      expect(etag, path).toMatch(/^W\/"/);
      expect(first.headers.get("Cache-Control"), path).toBe("public, max-age=60");
      const again = await getPage(path, { "If-None-Match": etag! });
      expect(again.status, path).toBe(304);
      expect(again.html, path).toBe("");
      // Another window is another page.
      const other = await getPage(`${path}${path.includes("?") ? "&" : "?"}days=30`);
      if (path !== "/") expect(other.headers.get("ETag"), path).not.toBe(etag);
    }
    const before = (await getPage(`/p/${slug}/users/10`)).headers.get("ETag")!;
    const post = await request("POST", `/v1/projects/${slug}/passes`, {
      token,
      body: passFor(Math.floor(Date.now() / 1000) - 60, 9, { host: 10, user: 10, team: 3 }),
    });
    expect(post.status).toBe(200);
    await runCron();
    const after = await getPage(`/p/${slug}/users/10`, { "If-None-Match": before });
    expect(after.status).toBe(200);
    expect(after.headers.get("ETag")).not.toBe(before);
  });

  it("the HTML and the JSON of the same snapshot have different ETags", async () => {
    const page = await getPage(`/p/${slug}/users/10`);
    const json = await request("GET", `/v1/projects/${slug}/users/10`);
    expect(page.headers.get("ETag")).not.toBe(json.headers!.get("ETag"));
  });
});

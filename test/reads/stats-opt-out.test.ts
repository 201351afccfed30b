/**
 * A volunteer who opts out of stats export has no cpid on any public read, page or KV snapshot,
 * nor do their hosts have a host_cpid, and /v1/cpid no longer finds them.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectError, pass, result, setupProject, workunit } from "../support/api-helpers";
import { clockNow } from "../central/helpers";
import { rawRequest, request } from "../support/api";
import { runCron as runMinuteCron } from "../support/cron";

const MINUTE_CRON = "* * * * *";

describe("a volunteer who opted out of stats export", () => {
  it("has no cpid on any public read or page, nor their hosts' host_cpid", async () => {
    const { slug, api } = await setupProject("optout");
    const cpid = "5555456789abcdef0123456789abcdef";
    const hostCpid = "5555ba9876543210fedcba9876543210";
    await api.ok("PUT", "/users/8", { cpid, name: "Private" });
    await api.ok("PUT", "/hosts/80", { cpid: hostCpid, user_id: 8 });
    await api.ok("POST", "/passes", { ...pass(workunit(1, [result(1, { host_id: 80, user_id: 8 })])), now: clockNow() });
    await runMinuteCron(MINUTE_CRON, Date.now());
    // Consenting: shown.
    expect((await request("GET", `/v1/projects/${slug}/users/8`)).body).toMatchObject({ cpid });
    // Opting out.
    await api.ok("PUT", "/users/8", { cpid, stats_export: false });
    await runMinuteCron(MINUTE_CRON, Date.now());
    expectError(await request("GET", `/v1/cpid/${cpid}`), 404, "not_found");
    const user = await request("GET", `/v1/projects/${slug}/users/8`);
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({ id: 8, cpid: null });
    const host = await request("GET", `/v1/projects/${slug}/hosts/80`);
    expect(host.body).toMatchObject({ id: 80, host_cpid: null });
    for (const page of [`/p/${slug}/users/8`, `/p/${slug}/hosts/80`]) {
      const html = String((await rawRequest("GET", page)).body);
      expect(html, page).not.toContain(cpid);
      expect(html, page).not.toContain(hostCpid);
    }
    for (const key of [`p/${slug}/users/8`, `p/${slug}/hosts/80`]) {
      const stored = await env.KV.get(key);
      expect(stored, key).not.toBeNull();
      expect(stored, key).not.toContain(cpid);
      expect(stored, key).not.toContain(hostCpid);
    }
  });
});

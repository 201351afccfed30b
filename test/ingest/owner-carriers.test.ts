/**
 * A user's credit rides on a host its grant writes anyway (src/db/owner-carriers.ts,
 * docs/storage.md#owners-credit-rides-on-a-host). The oracle: a team with one member is walked
 * through exactly the user's grants, and teams are always written to their own row, so the
 * user's total, RAC and RAC clock must equal its team's after every pass, whichever row holds
 * them; and the user's row must not have been written when a carrier took its credit.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { passFor } from "../reads/fixtures";
import { setupProject } from "../support/api-helpers";
import { projectIdOf } from "../support/project-id";

const T = 1_790_000_000;
/** User 7 alone in team 3, user 8 alone in team 4. */
const TEAM_OF = { 7: 3, 8: 4 } as const;

describe("a user's credit carried by its hosts", () => {
  it("reads as its one-member team's after every pass, owner change and PUT, with the user's row written only when needed", async () => {
    const { api, slug } = await setupProject("carriers");
    const projectId = await projectIdOf(slug);
    let wu = 1;
    let now = T;
    const post = async (host: number, user: 7 | 8) => {
      now += 600;
      const body = passFor(now, wu, { host, user, team: TEAM_OF[user] }, 1);
      wu += 1;
      const answer = await api.ok("POST", "/passes", body);
      expect(answer.workunits[0]!.results.every((r) => r.granted_credit > 0)).toBe(true);
    };
    const sameAsTeam = async (user: 7 | 8) => {
      const u = await api.ok("GET", `/users/${user}`);
      const t = await api.ok("GET", `/teams/${TEAM_OF[user]}`);
      expect(u.total_credit).toBeGreaterThan(0);
      const credit = [u.total_credit, u.expavg_credit, u.expavg_time];
      expect(credit).toEqual([t.total_credit, t.expavg_credit, t.expavg_time]);
      return credit;
    };
    const stored = async (user: number) =>
      (await env.DB.prepare("SELECT credit_seq, carriers FROM users WHERE project_id = ? AND id = ?").bind(projectId, user).first<{
        credit_seq: number;
        carriers: string | null;
      }>())!;
    const carried = async (host: number) =>
      (await env.DB.prepare("SELECT owner_credit_seq AS seq FROM hosts WHERE project_id = ? AND id = ?").bind(projectId, host).first<{
        seq: number | null;
      }>())!.seq;

    // Pass 1 creates user 7, naming host 1 its carrier; pass 2 writes its row again, naming
    // host 2 too; passes 3 and 4 are carried by hosts 1 and 2: the row stays at run 2.
    await post(1, 7);
    await sameAsTeam(7);
    expect(await stored(7)).toEqual({ credit_seq: 1, carriers: "[1]" });
    await post(2, 7);
    await sameAsTeam(7);
    expect(await stored(7)).toEqual({ credit_seq: 2, carriers: "[2,1]" });
    await post(1, 7);
    await sameAsTeam(7);
    await post(2, 7);
    const before = await sameAsTeam(7);
    expect(await stored(7)).toEqual({ credit_seq: 2, carriers: "[2,1]" });
    expect([await carried(1), await carried(2)]).toEqual([3, 4]);

    // A pass gives host 2, which holds user 7's newest credit, to user 8: user 7's row takes
    // that credit first, and host 2 carries nothing until it carries user 8's.
    await post(2, 8);
    expect(await sameAsTeam(7)).toEqual(before);
    expect((await stored(7)).credit_seq).toBe(4);
    expect(await carried(2)).toBeNull();
    await sameAsTeam(8);
    // User 8 was created by that pass, naming host 2 its carrier: its next two are carried.
    expect(await stored(8)).toEqual({ credit_seq: 1, carriers: "[2]" });
    await post(2, 8);
    await post(2, 8);
    const eight = await sameAsTeam(8);
    expect(await stored(8)).toEqual({ credit_seq: 1, carriers: "[2]" });
    expect(await carried(2)).toBe(3);

    // PUT gives host 2 back to user 7: user 8's credit moves to its row first.
    await api.ok("PUT", "/hosts/2", { user_id: 7 });
    expect(await sameAsTeam(8)).toEqual(eight);
    expect(await carried(2)).toBeNull();
    expect(await sameAsTeam(7)).toEqual(before);
    // A PUT of the user answers its credit as it stands.
    await post(1, 7);
    const seven = await sameAsTeam(7);
    expect(await carried(1)).toBe(5);
    const put = await api.ok("PUT", "/users/7", { name: "seven" });
    expect([put.total_credit, put.expavg_credit, put.expavg_time]).toEqual(seven);
  });

  for (const way of ["PUT", "POST /holders"] as const) {
    it(`moves a carried user's RAC clock to a create_time given before any credit (${way}), as its team's`, async () => {
      const { api, slug } = await setupProject("carriers-clock");
      const projectId = await projectIdOf(slug);
      // Post-assigned credit of 0: grants that still move the RAC clock (docs/spec/edge-cases.md#e17).
      await api.ok("PUT", "/apps/a", { credit_mode: "post_assigned" });
      const who = { host: 11, user: 9, team: 5 };
      const post = (now: number, wu: number, claimed: number) => {
        const body = passFor(now, wu, who, 1);
        for (const r of body.workunits[0]!.results) r.claimed_credit = claimed;
        return api.ok("POST", "/passes", body);
      };
      const credit = async (path: string) => {
        const x = await api.ok("GET", path);
        return [x.total_credit, x.expavg_credit, x.expavg_time];
      };
      // The first pass creates user 9 naming host 11 its carrier; the second is carried by host 11.
      const zero = await post(T, 1, 0);
      expect(zero.workunits[0]!.results.map((r) => r.granted_credit)).toEqual([0, 0]);
      await post(T + 600, 2, 0);
      const host = await env.DB.prepare("SELECT owner_credit_seq AS seq FROM hosts WHERE project_id = ? AND id = 11")
        .bind(projectId)
        .first<{ seq: number }>();
      expect(host!.seq).toBe(2);
      expect(await credit("/users/9")).toEqual([0, 0, T + 600]);

      // Still no credit: a create_time given moves the clock, for the user as for its team.
      const created = T - 86_400;
      if (way === "PUT") {
        const put = await api.ok("PUT", "/users/9", { create_time: created });
        expect([put.total_credit, put.expavg_credit, put.expavg_time]).toEqual([0, 0, created]);
        await api.ok("PUT", "/teams/5", { create_time: created });
      } else {
        await api.ok("POST", "/holders", { users: [{ id: 9, create_time: created }], teams: [{ id: 5, create_time: created }] });
      }
      expect(await credit("/users/9")).toEqual([0, 0, created]);
      expect(await credit("/users/9")).toEqual(await credit("/teams/5"));

      // The next credit starts from that clock.
      await post(T + 1200, 3, 25);
      const after = await credit("/users/9");
      expect(after[0]).toBeGreaterThan(0);
      expect(after).toEqual(await credit("/teams/5"));
    });
  }
});

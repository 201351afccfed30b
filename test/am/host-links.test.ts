/** PUT …/hosts/:id links a project's host to an account manager's host; bad links write nothing. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectError, issueAt } from "../support/api-helpers";
import { createAm, projectAt } from "./support";

async function linksOf(amSlug: string) {
  const { results } = await env.DB.prepare(
    "SELECT l.host_id, l.am_host_id FROM am_host_links l JOIN account_managers a ON a.id = l.am_id WHERE a.slug = ? ORDER BY l.host_id",
  )
    .bind(amSlug)
    .all();
  return results;
}

describe("host links", () => {
  it("links, moves and removes; account_manager and am_host_id go together; an unknown account manager is 404", async () => {
    const am = await createAm();
    const project = await projectAt("https://links.example/");
    await project.ok("PUT", "/hosts/1", { account_manager: am.slug, am_host_id: 11 });
    await project.ok("PUT", "/hosts/1", { account_manager: am.slug, am_host_id: 12 });
    expect(await linksOf(am.slug)).toEqual([{ host_id: 1, am_host_id: 12 }]);
    // Other details leave the link alone.
    await project.ok("PUT", "/hosts/1", { name: "box" });
    expect(await linksOf(am.slug)).toEqual([{ host_id: 1, am_host_id: 12 }]);

    issueAt(expectError(await project.raw("PUT", "/hosts/2", { am_host_id: 13 }), 400, "validation_failed"), "account_manager");
    issueAt(expectError(await project.raw("PUT", "/hosts/2", { account_manager: am.slug }), 400, "validation_failed"), "am_host_id");
    expectError(await project.raw("PUT", "/hosts/2", { account_manager: "no-such-am", am_host_id: 13 }), 404, "not_found");
    // Host 2 was not even created.
    expect(await env.DB.prepare("SELECT count(*) AS n FROM hosts WHERE id = 2").first("n")).toBe(0);

    await project.ok("PUT", "/hosts/1", { am_host_id: null });
    expect(await linksOf(am.slug)).toEqual([]);
  });
});

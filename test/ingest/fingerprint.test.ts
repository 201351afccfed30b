/**
 * A result's stored fingerprint is the hash of its posted content in one fixed form: a re-post
 * is told from a change by it, so the form may never change (every fingerprint stored before
 * would turn into a conflict). The expected arrays are written out here, field by field.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fingerprint64 } from "../../src/http/fingerprint";
import { pass, result, setupProject, workunit } from "../support/api-helpers";
import { projectIdOf } from "../support/project-id";

describe("result fingerprints", () => {
  it("hash [wu id, app, host, user, team, version, elapsed, cpu, flops, whole sent, whole received, state, outlier, claim]", async () => {
    const p = await setupProject("fp");
    const plain = result(71, { sent_time: 1000.75, received_time: 5000.5 });
    const full = result(72, { host_id: 11, user_id: 12, team_id: 3, runtime_outlier: true, claimed_credit: 42.5, devices: 4 });
    await p.api.ok("POST", "/passes", pass(workunit(7, [plain, full])));

    const projectId = await projectIdOf(p.slug);
    const stored = await env.DB.prepare("SELECT id, CAST(fingerprint AS TEXT) AS fp FROM results WHERE project_id = ? ORDER BY id")
      .bind(projectId)
      .all<{ id: number; fp: string }>();
    // Times truncated to whole seconds, no outlier flag: false, no claim: null; devices left out.
    const expected = [
      { id: 71, fp: await fingerprint64([7, "a", 10, 10, 0, 1, 1000, 900, 3e9, 1000, 5000, "valid", false, null]) },
      { id: 72, fp: await fingerprint64([7, "a", 11, 12, 3, 1, 1000, 900, 3e9, 1000, 5000, "valid", true, 42.5]) },
    ];
    expect(stored.results).toEqual(expected);
  });
});

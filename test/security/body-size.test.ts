/**
 * Every write route refuses a body over 5 MB with 413 `too_large` before parsing it, whether
 * the client declares its length or streams it, and nothing is written.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/app";
import { ADMIN_TOKEN } from "../support/api";
import { expectError, result, setupProject, workunit } from "../support/api-helpers";
import { callRow, rawRequest } from "../support/api";
import { rpcBody, totals } from "../am/support";
import { createAm } from "../am/support";
import { issueCentralToken } from "../central/helpers";
import { dbState } from "./db-state";

/** Valid JSON one byte over the limit. */
const oversized = (() => {
  const head = '{"pad":"';
  const tail = '"}';
  return head + "x".repeat(MAX_BODY_BYTES + 1 - head.length - tail.length) + tail;
})();

async function send(method: string, path: string, token: string, streamed: boolean) {
  const bytes = new TextEncoder().encode(oversized);
  const body = streamed
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 65536) controller.enqueue(bytes.slice(i, i + 65536));
          controller.close();
        },
      })
    : oversized;
  const res = await exports.default.fetch(`http://cobblestone.test${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body,
  });
  return { status: res.status, body: await res.json() };
}

describe("body size", () => {
  it("every write route: over 5 MB → 413 too_large, declared or streamed, nothing written", { timeout: 120_000 }, async () => {
    const { slug, token } = await setupProject("big");
    const am = await createAm("bigam");
    const central = await issueCentralToken("big");
    const routes: [string, string, string][] = [
      ["POST", "/v1/projects", ADMIN_TOKEN],
      ["POST", "/v1/account-managers", ADMIN_TOKEN],
      ["POST", "/v1/central/contributors", ADMIN_TOKEN],
      ["DELETE", `/v1/central/contributors/${central.id}`, ADMIN_TOKEN],
      ["POST", "/v1/central/app-versions", central.token],
      ["PUT", `/v1/projects/${slug}/apps/a`, token],
      ["PUT", `/v1/projects/${slug}/app-versions/1`, token],
      ["PUT", `/v1/projects/${slug}/hosts/1`, token],
      ["PUT", `/v1/projects/${slug}/users/1`, token],
      ["PUT", `/v1/projects/${slug}/teams/1`, token],
      ["POST", `/v1/projects/${slug}/passes`, token],
      ["POST", `/v1/projects/${slug}/errors`, token],
      ["POST", `/v1/projects/${slug}/rescale`, token],
      ["POST", `/v1/projects/${slug}/tokens`, token],
      ["DELETE", `/v1/projects/${slug}/tokens/1`, token],
      ["POST", `/v1/am/${am.slug}/hosts/1/rpcs`, am.token],
    ];
    const before = await dbState();
    for (const [method, path, auth] of routes) {
      for (const streamed of [false, true]) {
        const res = await send(method, path, auth, streamed);
        expectError(res, 413, "too_large");
      }
    }
    expect(await dbState()).toEqual(before);
  });
});

describe("array lengths", () => {
  it("over each array's limit → 413 too_large, nothing written", async () => {
    const { slug, token, api } = await setupProject("arr");
    const am = await createAm("arram");
    const central = await issueCentralToken("arr");
    const before = await dbState();
    const results = Array.from({ length: 1001 }, (_, i) => result(i + 1));
    const workunits = Array.from({ length: 1001 }, (_, i) => workunit(i + 1, [result(i + 1)]));
    const errors = Array.from({ length: 1001 }, (_, i) => ({ id: i + 1, host_id: 1, app_version_id: 1, outcome: "error" as const }));
    const projects = Array.from({ length: 101 }, (_, i) => totals(`https://p${i}.example/`));
    const version = {
      id: 1,
      app: "a",
      platform: "p",
      plan_class: "",
      version_num: 1,
      pfc_n: 0,
      pfc_avg: 0,
      pfc_scale: 0,
      expavg_credit: 0,
      expavg_time: 0,
    };
    const versions = Array.from({ length: 10_001 }, (_, i) => ({ ...version, id: i + 1 }));
    const cases = [
      callRow("POST", `/v1/projects/${slug}/passes`, token, { workunits: [workunit(1, results)] }),
      callRow("POST", `/v1/projects/${slug}/passes`, token, { workunits }),
      callRow("POST", `/v1/projects/${slug}/errors`, token, { results: errors }),
      callRow("POST", `/v1/am/${am.slug}/hosts/1/rpcs`, am.token, rpcBody(Date.now() / 1000 - 60, projects)),
      callRow("POST", "/v1/central/app-versions", central.token, { app_versions: versions }),
    ];
    for (const { method, path, token: auth, body } of cases) {
      expectError(await rawRequest(method, path, { token: auth, body }), 413, "too_large");
    }
    expect(await dbState()).toEqual(before);
    await api.ok("GET", "/apps");
  });
});

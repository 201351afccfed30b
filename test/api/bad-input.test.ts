/**
 * Bad input (docs/spec/api-contract.md#errors): every refusal has the documented status and error
 * shape, names the offending fields, and writes nothing — checked after each refusal by the
 * hosts of the pass still being unknown, app-version statistics untouched, and the same pass,
 * made valid, being processed for the first time (replayed false).
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { request } from "../support/api";
import {
  type PassBody,
  expectError,
  expectNoEntitiesOf,
  expectNothingWritten,
  expectProcessedFresh,
  expectUntouchedVersions,
  issueAt,
  issuePaths,
  ledgerState,
  pass,
  result,
  setupProject,
  spoil,
  validPass,
  workunit,
} from "../support/api-helpers";

const FIVE_MB = 5 * 1024 * 1024;

describe("POST /passes: unknown or mismatched references", () => {
  it("unknown app → 404 naming the app, nothing written", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => (p.workunits[0]!.app = "nosuchapp"));
    const error = expectError(await api.raw("POST", "/passes", bad), 404, "not_found");
    expect(error.message).toContain("nosuchapp");
    expect(issueAt(error, "workunits[0].app").message).toContain("nosuchapp");
    await expectNothingWritten(api, validPass());
  });

  it("unknown app version → 404 naming it, nothing written", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => (p.workunits[0]!.results[1]!.app_version_id = 4242));
    const error = expectError(await api.raw("POST", "/passes", bad), 404, "not_found");
    expect(error.message).toContain("4242");
    expect(issueAt(error, "workunits[0].results[1].app_version_id").message).toContain("4242");
    await expectNothingWritten(api, validPass());
  });

  it("app version of another app → 422, nothing written", async () => {
    const { api } = await setupProject();
    // Version 3 belongs to app "g"; the workunit is of app "a".
    const bad = validPass(1, 10, (p) => (p.workunits[0]!.results[0]!.app_version_id = 3));
    const error = expectError(await api.raw("POST", "/passes", bad), 422);
    expect(issuePaths(error)).toEqual(["workunits[0].results[0].app_version_id"]);
    await expectNothingWritten(api, validPass());
  });

  it("one unknown app among valid workunits → 404, the valid ones not credited either", async () => {
    const { api } = await setupProject();
    const good = pass(
      workunit(1, [result(11, { host_id: 10 }), result(12, { host_id: 11, user_id: 11 })]),
      workunit(2, [result(21, { host_id: 12, user_id: 12, app_version_id: 3 })], { app: "g" }),
    );
    const bad: PassBody = structuredClone(good);
    bad.workunits.push(workunit(3, [result(31, { host_id: 13, user_id: 13 })], { app: "zzz" }));
    const error = expectError(await api.raw("POST", "/passes", bad), 404);
    expect(issuePaths(error)).toEqual(["workunits[2].app"]);
    await expectNoEntitiesOf(api, bad);
    await expectNothingWritten(api, good);
  });
});

describe("POST /passes: numbers out of range → 400 naming the field", () => {
  it("elapsed_time 1e999 (Infinity once parsed) → 400 at workunits[0].results[0].elapsed_time", async () => {
    const { api, postRaw } = await setupProject();
    const json = JSON.stringify(validPass()).replace('"elapsed_time":1000', '"elapsed_time":1e999');
    expect(json).toContain("1e999");
    const error = expectError(await postRaw("/passes", json), 400, "validation_failed");
    expect(issuePaths(error)).toEqual(["workunits[0].results[0].elapsed_time"]);
    await expectNothingWritten(api, validPass());
  });

  it("-1e999 and 1e999 elsewhere (flops_estimate, now) → 400 at each path", async () => {
    const { api, postRaw } = await setupProject();
    const json = JSON.stringify(validPass())
      .replace('"now":6000.25', '"now":1e999')
      .replace('"flops_estimate":3000000000', '"flops_estimate":-1e999');
    const error = expectError(await postRaw("/passes", json), 400);
    expect(issuePaths(error).sort()).toEqual(["now", "workunits[0].results[0].flops_estimate"]);
    await expectNothingWritten(api, validPass());
  });

  it("cpu_time -1 → 400 at workunits[0].results[0].cpu_time", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => (p.workunits[0]!.results[0]!.cpu_time = -1));
    const error = expectError(await api.raw("POST", "/passes", bad), 400, "validation_failed");
    expect(issuePaths(error)).toEqual(["workunits[0].results[0].cpu_time"]);
    await expectNothingWritten(api, validPass());
  });

  it("rsc_fpops_est 0 → 400 at workunits[0].rsc_fpops_est", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => (p.workunits[0]!.rsc_fpops_est = 0));
    const error = expectError(await api.raw("POST", "/passes", bad), 400);
    expect(issuePaths(error)).toContain("workunits[0].rsc_fpops_est");
    await expectNothingWritten(api, validPass());
  });

  it("rsc_fpops_bound < rsc_fpops_est → 400 at workunits[0].rsc_fpops_bound", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => (p.workunits[0]!.rsc_fpops_bound = 1e12));
    const error = expectError(await api.raw("POST", "/passes", bad), 400);
    expect(issuePaths(error)).toEqual(["workunits[0].rsc_fpops_bound"]);
    await expectNothingWritten(api, validPass());
  });

  it("sent_time later than received_time → 400 at workunits[0].results[1].sent_time", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => (p.workunits[0]!.results[1]!.sent_time = 5001));
    const error = expectError(await api.raw("POST", "/passes", bad), 400);
    expect(issuePaths(error)).toEqual(["workunits[0].results[1].sent_time"]);
    await expectNothingWritten(api, validPass());
  });

  it("non-integer and non-positive ids, wrong types, bad enum → 400 at each path", async () => {
    const { api } = await setupProject();
    const bad = spoil(validPass(), (p) => {
      // Spoiled on purpose: any field may take any JSON value here.
      const r0: Record<string, unknown> = p.workunits[0]!.results[0]!;
      const r1: Record<string, unknown> = p.workunits[0]!.results[1]!;
      r0.id = 1.5;
      r0.host_id = 0;
      r1.validate_state = "maybe";
      r1.app_version_id = -1; // only -2 … -6 are anonymous platforms
      const w0: Record<string, unknown> = p.workunits[0]!;
      w0.target_nresults = "2";
    });
    const error = expectError(await api.untyped("POST", "/passes", bad), 400);
    expect(issuePaths(error).sort()).toEqual(
      [
        "workunits[0].results[0].id",
        "workunits[0].results[0].host_id",
        "workunits[0].results[1].validate_state",
        "workunits[0].results[1].app_version_id",
        "workunits[0].target_nresults",
      ].sort(),
    );
    await expectNothingWritten(api, validPass());
  });

  it("several bad fields across workunits → ONE 400 listing every path, valid workunits not written", async () => {
    const { api } = await setupProject();
    const good = pass(
      workunit(1, [result(11, { host_id: 10 }), result(12, { host_id: 11, user_id: 11 })]),
      workunit(2, [result(21, { host_id: 12, user_id: 12 }), result(22, { host_id: 13, user_id: 13 })]),
      workunit(3, [result(31, { host_id: 14, user_id: 14 }), result(32, { host_id: 15, user_id: 15 })]),
      workunit(4, [result(41, { host_id: 16, user_id: 16 }), result(42, { host_id: 17, user_id: 17 })]),
    );
    const bad: PassBody = structuredClone(good);
    bad.workunits[3]!.results[1]!.elapsed_time = -5;
    bad.workunits[1]!.rsc_fpops_est = 0;
    bad.workunits[2]!.results[0]!.sent_time = 9999; // after received_time 5000
    bad.workunits[2]!.results[1]!.cpu_time = -1;
    const res = await api.raw("POST", "/passes", bad);
    const error = expectError(res, 400, "validation_failed");
    expect(issuePaths(error).sort()).toEqual(
      [
        "workunits[1].rsc_fpops_est",
        "workunits[2].results[0].sent_time",
        "workunits[2].results[1].cpu_time",
        "workunits[3].results[1].elapsed_time",
      ].sort(),
    );
    expect(error.message).toMatch(/nothing was written/);
    await expectNoEntitiesOf(api, good);
    await expectNothingWritten(api, good);
  });
});

describe("POST /passes: times against now → 422", () => {
  it("now an hour in the future → 422 at now, nothing written", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => (p.now = Date.now() / 1000 + 3600));
    const error = expectError(await api.raw("POST", "/passes", bad), 422, "now_in_future");
    expect(issuePaths(error)).toEqual(["now"]);
    await expectNothingWritten(api, validPass());
  });

  it("received_time later than now → 422 at its path, nothing written", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => (p.workunits[0]!.results[1]!.received_time = 7000));
    const error = expectError(await api.raw("POST", "/passes", bad), 422, "received_after_now");
    expect(issuePaths(error)).toEqual(["workunits[0].results[1].received_time"]);
    await expectNothingWritten(api, validPass());
  });

  it("no now and a received_time an hour ahead of the server clock → 422", async () => {
    const { api } = await setupProject();
    const later = Math.floor(Date.now() / 1000) + 3600;
    const bad = validPass(1, 10, (p) => {
      delete p.now;
      p.workunits[0]!.results[0]!.received_time = later;
    });
    const error = expectError(await api.raw("POST", "/passes", bad), 422);
    expect(issuePaths(error)).toEqual(["workunits[0].results[0].received_time"]);
    await expectNothingWritten(api, validPass());
  });
});

describe("POST /passes: size limits → 413", () => {
  it("1001 workunits → 413 too_large, nothing written", async () => {
    const { api } = await setupProject();
    const bad = pass(...Array.from({ length: 1001 }, (_, i) => workunit(i + 1, [result(i + 1, { host_id: 10 })])));
    const error = expectError(await api.raw("POST", "/passes", bad), 413, "too_large");
    expect(error.message).toMatch(/1000/);
    await expectNothingWritten(api, validPass());
  });

  it("exactly 1000 workunits is accepted", { timeout: 120_000 }, async () => {
    const { api } = await setupProject();
    const body = pass(
      ...Array.from({ length: 1000 }, (_, i) => workunit(i + 1, [result(i + 1, { host_id: 10 + (i % 50), user_id: 10 + (i % 50) })])),
    );
    await expectProcessedFresh(api, body);
  });

  it("a valid pass padded with whitespace to over 5 MB → 413, nothing written", async () => {
    const { api, postRaw } = await setupProject();
    const json = JSON.stringify(validPass());
    const padded = `${json.slice(0, -1)}${" ".repeat(FIVE_MB + 100_000)}}`;
    expect(JSON.parse(padded)).toEqual(validPass()); // the body itself is fine
    const error = expectError(await postRaw("/passes", padded), 413, "too_large");
    expect(error.message).toContain(String(FIVE_MB));
    await expectNothingWritten(api, validPass());
  });

  it("a huge padding field (over 5 MB) → 413, not 400", async () => {
    const { api } = await setupProject();
    const bad = spoil(validPass(), (p) => (p.padding = "x".repeat(FIVE_MB + 1)));
    expectError(await api.untyped("POST", "/passes", bad), 413, "too_large");
    await expectNothingWritten(api, validPass());
  });

  it("over 5 MB streamed without Content-Length → 413, nothing written", async () => {
    const { slug, token, api } = await setupProject();
    const json = JSON.stringify(validPass());
    const padded = new TextEncoder().encode(`${json.slice(0, -1)}${" ".repeat(FIVE_MB + 1)}}`);
    const chunk = 256 * 1024;
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= padded.length) return controller.close();
        controller.enqueue(padded.slice(offset, offset + chunk));
        offset += chunk;
      },
    });
    const res = await exports.default.fetch(`http://cobblestone.test/v1/projects/${slug}/passes`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: stream,
    });
    expectError({ status: res.status, body: await res.json() }, 413, "too_large");
    await expectNothingWritten(api, validPass());
  });

  it("just under 5 MB of whitespace-padded valid JSON is accepted", async () => {
    const { postRaw } = await setupProject();
    const json = JSON.stringify(validPass());
    const padded = `${json.slice(0, -1)}${" ".repeat(FIVE_MB - json.length)}}`;
    expect(new TextEncoder().encode(padded).length).toBe(FIVE_MB);
    const res = await postRaw("/passes", padded);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.workunits[0]!.replayed).toBe(false);
  });
});

describe("POST /passes: malformed or unexpected bodies → 400", () => {
  it("the same result id twice in one workunit → 400 at the duplicate, nothing written", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => (p.workunits[0]!.results[1]!.id = 11));
    const error = expectError(await api.raw("POST", "/passes", bad), 400);
    expect(issuePaths(error)).toEqual(["workunits[0].results[1].id"]);
    expect(error.issues![0]!.message).toContain("11");
    await expectNothingWritten(api, validPass());
  });

  it("the same result id in two workunits → 400 at the second, nothing written", async () => {
    const { api } = await setupProject();
    const good = pass(
      workunit(1, [result(11, { host_id: 10 }), result(12, { host_id: 11, user_id: 11 })]),
      workunit(2, [result(21, { host_id: 12, user_id: 12 }), result(22, { host_id: 13, user_id: 13 })]),
    );
    const bad: PassBody = structuredClone(good);
    bad.workunits[1]!.results[1]!.id = 12;
    const error = expectError(await api.raw("POST", "/passes", bad), 400);
    expect(issuePaths(error)).toEqual(["workunits[1].results[1].id"]);
    await expectNoEntitiesOf(api, good);
    await expectNothingWritten(api, good);
  });

  it("malformed JSON → 400 in the error shape, nothing written", async () => {
    const { api, postRaw } = await setupProject();
    const json = JSON.stringify(validPass());
    for (const broken of [json.slice(0, -5), `${json},`, "{workunits: []}", "", "null"]) {
      const res = await postRaw("/passes", broken);
      expectError(res, 400);
    }
    await expectNothingWritten(api, validPass());
  });

  it("a JSON value that is not an object (array, number, string) → 400", async () => {
    const { api, postRaw } = await setupProject();
    for (const body of ["[]", "42", '"pass"', "true"]) {
      const error = expectError(await postRaw("/passes", body), 400, "validation_failed");
      expect(issuePaths(error)).toEqual(["(body)"]);
    }
    await expectNothingWritten(api, validPass());
  });

  it("unknown extra fields (pass, workunit, result) → 400 naming each, nothing written", async () => {
    const { api } = await setupProject();
    const bad = spoil(validPass(), (p) => {
      p.validator = "v1";
      p.workunits[0]!.priority = 3;
      p.workunits[0]!.results[1]!.granted_credit = 5;
    });
    const error = expectError(await api.untyped("POST", "/passes", bad), 400, "validation_failed");
    expect(issuePaths(error).sort()).toEqual(["(body)", "workunits[0]", "workunits[0].results[1]"].sort());
    const messages = error.issues!.map((i) => i.message).join(" ");
    for (const key of ["validator", "priority", "granted_credit"]) expect(messages).toContain(key);
    await expectNothingWritten(api, validPass());
  });

  it("missing required fields and empty arrays → 400 at each path", async () => {
    const { api } = await setupProject();
    const bad = spoil(validPass(), (p) => {
      // Required fields, so removed through Reflect (the type says they are always there).
      Reflect.deleteProperty(p.workunits[0]!.results[0]!, "host_id");
      Reflect.deleteProperty(p.workunits[0]!, "app");
      p.workunits.push(workunit(2, []));
    });
    const error = expectError(await api.untyped("POST", "/passes", bad), 400);
    expect(issuePaths(error).sort()).toEqual(["workunits[0].app", "workunits[0].results[0].host_id", "workunits[1].results"].sort());
    expectError(await api.raw("POST", "/passes", { now: 6000, workunits: [] }), 400);
    expectError(await api.untyped("POST", "/passes", { now: 6000 }), 400);
    await expectNothingWritten(api, validPass());
  });

  it("a body that is not declared JSON → 4xx in the error shape, nothing written", async () => {
    const { slug, token, api } = await setupProject();
    const res = await exports.default.fetch(`http://cobblestone.test/v1/projects/${slug}/passes`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "text/plain" },
      body: JSON.stringify(validPass()),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expectError({ status: res.status, body: await res.json() }, res.status);
    await expectNothingWritten(api, validPass());
  });
});

describe("POST /passes: a decided result posted again with other numbers → 409", () => {
  it("409 naming the result; the pass's other workunits not credited either", async () => {
    const { api } = await setupProject();
    const first = validPass(1, 10);
    await expectProcessedFresh(api, first);

    const other = workunit(2, [result(21, { host_id: 20, user_id: 20 }), result(22, { host_id: 21, user_id: 21 })]);
    const changed = structuredClone(first.workunits[0]!);
    changed.results[1]!.elapsed_time = 1300; // was 1200
    const bad = pass(other, changed);

    const before = await ledgerState(api, [10, 20, 21], [10, 20, 21]);
    const error = expectError(await api.raw("POST", "/passes", bad), 409, "conflict");
    expect(issuePaths(error)).toEqual(["workunits[1].results[1]"]);
    expect(error.issues![0]!.message).toContain("12");
    expect(await ledgerState(api, [10, 20, 21], [10, 20, 21])).toEqual(before);

    // The other workunit is still new, and the first pass replays unchanged.
    await expectProcessedFresh(api, pass(other));
    const replay = await api.ok("POST", "/passes", first);
    expect(replay.workunits[0]!.replayed).toBe(true);
    expect(replay.workunits[0]!.results.map((r) => r.replayed)).toEqual([true, true]);
  });

  it("another host or verdict for a decided result is a conflict too", async () => {
    const { api } = await setupProject();
    const first = validPass(1, 10);
    await expectProcessedFresh(api, first);
    const before = await ledgerState(api, [10, 99], [10]);
    for (const edit of [
      (p: PassBody) => (p.workunits[0]!.results[0]!.host_id = 99),
      (p: PassBody) => (p.workunits[0]!.results[0]!.validate_state = "invalid"),
      (p: PassBody) => (p.workunits[0]!.results[0]!.sent_time = 999),
    ]) {
      const bad = structuredClone(first);
      edit(bad);
      const error = expectError(await api.raw("POST", "/passes", bad), 409, "conflict");
      expect(issuePaths(error)).toEqual(["workunits[0].results[0]"]);
    }
    expect(await ledgerState(api, [10, 99], [10])).toEqual(before);
  });
});

describe("configuration routes", () => {
  it("PUT /apps/:app credit_mode runtime with max_granted_credit 0 → 422, app not created", async () => {
    const { api } = await setupProject();
    const before = await ledgerState(api, []);
    const res = await api.raw("PUT", "/apps/rt", { credit_mode: "runtime", max_granted_credit: 0 });
    const error = expectError(res, 422);
    expect(issuePaths(error)).toEqual(["max_granted_credit"]);
    expect(await ledgerState(api, [])).toEqual(before);
    expect((await api.ok("GET", "/apps")).apps.map((a) => a.name)).toEqual(["a", "g"]);
  });

  it("PUT /apps/:app runtime on an app already capped at 0 → 422, app unchanged", async () => {
    const { api } = await setupProject();
    await api.ok("PUT", "/apps/a", { max_granted_credit: 0 });
    const before = await ledgerState(api, []);
    expectError(await api.raw("PUT", "/apps/a", { credit_mode: "runtime" }), 422);
    expectError(await api.raw("PUT", "/apps/a", { credit_mode: "runtime", max_granted_credit: 0 }), 422);
    expect(await ledgerState(api, [])).toEqual(before);
    const a = (await api.ok("GET", "/apps")).apps.find((x) => x.name === "a")!;
    expect([a.credit_mode, a.max_granted_credit]).toEqual(["adaptive", 0]);
  });

  it("PUT /apps/:app with an unknown credit_mode or field → 400, app not created", async () => {
    const { api } = await setupProject();
    const before = await ledgerState(api, []);
    const error = expectError(await api.untyped("PUT", "/apps/x", { credit_mode: "generous", colour: "red" }), 400);
    expect(issuePaths(error).sort()).toEqual(["(body)", "credit_mode"]);
    expectError(await api.raw("PUT", "/apps/bad%20name", {}), 400);
    expect(await ledgerState(api, [])).toEqual(before);
  });

  it("PUT /app-versions/:id with an unknown app → 404, version not created", async () => {
    const { api } = await setupProject();
    const before = await ledgerState(api, []);
    const res = await api.raw("PUT", "/app-versions/9", { app: "nosuchapp", platform: "linux", plan_class: "", version_num: 1 });
    const error = expectError(res, 404, "not_found");
    expect(error.message).toContain("nosuchapp");
    expect(issuePaths(error)).toEqual(["app"]);
    expect(await ledgerState(api, [])).toEqual(before);
    expect((await api.ok("GET", "/app-versions")).app_versions.map((v) => v.id)).toEqual([1, 2, 3]);
  });

  it("PUT /app-versions/:id moving a version to another app → 409, version unchanged", async () => {
    const { api } = await setupProject();
    const before = await ledgerState(api, []);
    const res = await api.raw("PUT", "/app-versions/1", { app: "g", platform: "win", plan_class: "x", version_num: 7 });
    const error = expectError(res, 409, "conflict");
    expect(issuePaths(error)).toEqual(["app"]);
    expect(await ledgerState(api, [])).toEqual(before);
    const v1 = (await api.ok("GET", "/app-versions")).app_versions.find((v) => v.id === 1)!;
    expect([v1.app, v1.platform, v1.plan_class, v1.version_num]).toEqual(["a", "linux", "", 1]);
  });

  it("PUT /app-versions/:id with a bad id → 400", async () => {
    const { api } = await setupProject();
    const body = { app: "a", platform: "linux", plan_class: "", version_num: 1 };
    for (const id of ["0", "-1", "abc", "1.5"]) expectError(await api.raw("PUT", `/app-versions/${id}`, body), 400);
    await expectUntouchedVersions(api);
    expect((await api.ok("GET", "/app-versions")).app_versions.map((v) => v.id)).toEqual([1, 2, 3]);
  });
});

describe("POST /errors", () => {
  it("an anonymous-platform result (app_version_id -2) without app → 400 at results[0].app", async () => {
    const { api } = await setupProject();
    const res = await api.raw("POST", "/errors", {
      now: 6000,
      results: [{ id: 1, host_id: 10, app_version_id: -2, outcome: "timeout", delay_bound: 100 }],
    });
    const error = expectError(res, 400, "validation_failed");
    expect(issuePaths(error)).toEqual(["results[0].app"]);
    expect(await api.ok("GET", "/host-app-versions?host_id=10")).toEqual({ host_app_versions: [] });
    // Valid now: it records the timeout for the first time.
    const ok = await api.ok("POST", "/errors", {
      now: 6000,
      results: [{ id: 1, host_id: 10, app_version_id: -2, app: "a", outcome: "timeout", delay_bound: 100 }],
    });
    expect(ok.results[0]!.replayed).toBe(false);
  });

  it("an unknown app version → 404 naming it, nothing recorded (not even the valid results)", async () => {
    const { api } = await setupProject();
    const good = { id: 1, host_id: 10, app_version_id: 1, outcome: "timeout" as const, delay_bound: 100 };
    const res = await api.raw("POST", "/errors", {
      now: 6000,
      results: [good, { id: 2, host_id: 10, app_version_id: 777, outcome: "error" }],
    });
    const error = expectError(res, 404, "not_found");
    expect(error.message).toContain("777");
    expect(issuePaths(error)).toEqual(["results[1].app_version_id"]);
    expect(await api.ok("GET", "/host-app-versions?host_id=10")).toEqual({ host_app_versions: [] });
    const ok = await api.ok("POST", "/errors", { now: 6000, results: [good] });
    expect(ok.results[0]!.replayed).toBe(false);
  });

  it("an unknown app for an anonymous-platform result → 404 naming it", async () => {
    const { api } = await setupProject();
    const res = await api.raw("POST", "/errors", {
      now: 6000,
      results: [{ id: 1, host_id: 10, app_version_id: -3, app: "ghost", outcome: "error" }],
    });
    const error = expectError(res, 404);
    expect(error.message).toContain("ghost");
    expect(issuePaths(error)).toEqual(["results[0].app"]);
    expect(await api.ok("GET", "/host-app-versions?host_id=10")).toEqual({ host_app_versions: [] });
  });

  it("the same result id twice → 400 at the duplicate, nothing recorded", async () => {
    const { api } = await setupProject();
    const one = { id: 1, host_id: 10, app_version_id: 1, outcome: "timeout" as const, delay_bound: 100 };
    const res = await api.raw("POST", "/errors", { now: 6000, results: [one, { ...one, outcome: "error" }] });
    const error = expectError(res, 400, "validation_failed");
    expect(issuePaths(error)).toEqual(["results[1].id"]);
    expect(await api.ok("GET", "/host-app-versions?host_id=10")).toEqual({ host_app_versions: [] });
  });

  it("now in the future → 422, nothing recorded", async () => {
    const { api } = await setupProject();
    const res = await api.raw("POST", "/errors", {
      now: Date.now() / 1000 + 3600,
      results: [{ id: 1, host_id: 10, app_version_id: 1, outcome: "timeout", delay_bound: 100 }],
    });
    expectError(res, 422, "now_in_future");
    expect(await api.ok("GET", "/host-app-versions?host_id=10")).toEqual({ host_app_versions: [] });
  });
});

describe("reads", () => {
  it("GET /v1/projects/unknown/hosts/1 → 404", async () => {
    const error = expectError(await request("GET", "/v1/projects/unknown/hosts/1"), 404, "not_found");
    expect(error.message).toContain("unknown");
  });

  it("GET /hosts/:id of a host never seen → 404; a bad id → 400", async () => {
    const { api } = await setupProject();
    expectError(await api.raw("GET", "/hosts/123"), 404, "not_found");
    expectError(await api.raw("GET", "/hosts/abc"), 400);
    expectError(await api.raw("GET", "/users/0"), 400);
  });

  it("GET /host-app-versions without host_id → 400 at host_id; a bad host_id → 400", async () => {
    const { api } = await setupProject();
    const error = expectError(await api.raw("GET", "/host-app-versions"), 400, "validation_failed");
    expect(issuePaths(error)).toEqual(["host_id"]);
    expectError(await api.raw("GET", "/host-app-versions?host_id=-4"), 400);
    expectError(await api.raw("GET", "/host-app-versions?host_id=x"), 400);
  });

  it("GET /apps and /app-versions of an unknown project → 404", async () => {
    expectError(await request("GET", "/v1/projects/no-such-project/apps"), 404, "not_found");
    expectError(await request("GET", "/v1/projects/no-such-project/app-versions"), 404, "not_found");
  });

  it("an unknown route → 404 in the error shape", async () => {
    expectError(await request("GET", "/v1/nothing-here"), 404, "not_found");
  });
});

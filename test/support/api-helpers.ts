/**
 * Helpers for most workerd test files: a project set up like the edge trace, a builder for
 * minimal valid passes, the error-shape check, and "nothing was written" checks.
 */
import { expect } from "vitest";
import { type ApiResponse, type ProjectSettings, createProject, rawRequest, typedClient } from "./api";
import type { SuccessBody, components } from "./api-types";

/** The `now` of edge.jsonl's first pass. */
export const NOW = 6000.25;

/** A pass's body and its parts, as the OpenAPI document types them. */
export type ResultBody = components["schemas"]["Result"];
export type WorkunitBody = components["schemas"]["Workunit"];
export type PassBody = components["schemas"]["PassRequest"];

/**
 * `T` with any extra field allowed at every level, for a body a test spoils on purpose (a
 * field of the wrong type through `Record<string, unknown>`, a required one away through
 * `Reflect.deleteProperty`).
 */
export type Spoilable<T> = T extends readonly (infer E)[]
  ? Spoilable<E>[]
  : T extends object
    ? { [K in keyof T]: Spoilable<T[K]> } & { [extra: string]: unknown }
    : T;

/**
 * A copy of `body` spoiled by `edit`. It is `unknown`, so it is sent only through an untyped
 * call (`api.untyped`, `rawRequest`): a typed one takes only the documented shape.
 */
export function spoil<T>(body: T, edit: (spoiled: Spoilable<T>) => void): unknown {
  const copy = structuredClone(body) as Spoilable<T>;
  edit(copy);
  return copy;
}

/** A valid result as in edge.jsonl's first pass (host 10, user 10, app version 1 of app "a"). */
export function result(id: number, over: Partial<ResultBody> = {}): ResultBody {
  return {
    id,
    host_id: 10,
    user_id: 10,
    team_id: 0,
    app_version_id: 1,
    elapsed_time: 1000,
    cpu_time: 900,
    flops_estimate: 3e9,
    sent_time: 1000,
    received_time: 5000,
    validate_state: "valid",
    runtime_outlier: false,
    ...over,
  };
}

/** A valid workunit of app "a" as in edge.jsonl's first pass. */
export function workunit(id: number, results: ResultBody[], over: Partial<WorkunitBody> = {}): WorkunitBody {
  return { id, app: "a", rsc_fpops_est: 3e12, rsc_fpops_bound: 3e13, target_nresults: 2, results, ...over };
}

export function pass(...workunits: WorkunitBody[]): PassBody {
  return { now: NOW, workunits };
}

/**
 * A minimal valid pass: one workunit `wuId` with two valid results `wuId*10+1`, `wuId*10+2`
 * from host `hostId` (user `hostId`); `edit` may change its values (`spoil` its shape).
 */
export function validPass(wuId = 1, hostId = 10, edit: (p: PassBody) => void = () => {}): PassBody {
  const p = pass(
    workunit(wuId, [
      result(wuId * 10 + 1, { host_id: hostId, user_id: hostId }),
      result(wuId * 10 + 2, { host_id: hostId, user_id: hostId, elapsed_time: 1200 }),
    ]),
  );
  edit(p);
  return p;
}

export type Api = ReturnType<typeof typedClient>;

export interface TestProject {
  slug: string;
  token: string;
  /** The project's calls, typed by the OpenAPI document. */
  api: Api;
  /** POST with a raw (already serialised, maybe malformed) JSON body and the project's token; the answer typed as `request`'s. */
  postRaw: <P extends string>(path: P, json: string) => Promise<ApiResponse<SuccessBody<"POST", `/v1/projects/${string}${P}`>>>;
}

/** A fresh project with edge.jsonl's setup: apps "a" and "g", app versions 1, 2 (a) and 3 (g). */
export async function setupProject(prefix = "api", settings: ProjectSettings = {}): Promise<TestProject> {
  const { slug, token } = await createProject(prefix, settings);
  const api = typedClient(slug, token);
  await api.ok("PUT", "/apps/a", { host_scale_check: false });
  await api.ok("PUT", "/apps/g", { host_scale_check: true, min_avg_pfc: 1.5, target_nresults: 2 });
  await api.ok("PUT", "/app-versions/1", { app: "a", platform: "linux", plan_class: "", version_num: 1 });
  await api.ok("PUT", "/app-versions/2", { app: "a", platform: "linux", plan_class: "intel", version_num: 1 });
  await api.ok("PUT", "/app-versions/3", { app: "g", platform: "linux", plan_class: "", version_num: 5 });
  const postRaw = <P extends string>(path: P, json: string) =>
    rawRequest("POST", `/v1/projects/${slug}${path}`, { token, rawBody: json }) as Promise<
      ApiResponse<SuccessBody<"POST", `/v1/projects/${string}${P}`>>
    >;
  return { slug, token, api, postRaw };
}

export interface ErrorDetail {
  code: string;
  message: string;
  issues?: { path: string; message: string }[];
}

/**
 * Checks the status and that the body is exactly the documented error shape:
 * `{"error": {"code", "message", "issues"?: [{path, message}]}}`. Returns `error`.
 */
export function expectError(res: ApiResponse, status: number, code?: string): ErrorDetail {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const error = errorOf(res);
  if (code !== undefined) expect(error.code).toBe(code);
  return error;
}

/** The `error` of an answer the test already knows is one (any status), checked to be in the documented shape. */
export function errorOf(res: ApiResponse): ErrorDetail {
  const body = res.body as Record<string, unknown>;
  expect(typeof body, `body is not JSON: ${String(res.body)}`).toBe("object");
  expect(Object.keys(body)).toEqual(["error"]);
  const error = body.error as Record<string, unknown>;
  for (const key of Object.keys(error)) expect(["code", "message", "issues"]).toContain(key);
  expect(typeof error.code).toBe("string");
  expect(error.code).not.toBe("");
  expect(typeof error.message).toBe("string");
  expect(error.message).not.toBe("");
  if ("issues" in error) {
    expect(Array.isArray(error.issues)).toBe(true);
    for (const issue of error.issues as Record<string, unknown>[]) {
      expect(Object.keys(issue).sort()).toEqual(["message", "path"]);
      expect(typeof issue.path).toBe("string");
      expect(typeof issue.message).toBe("string");
    }
  }
  // Checked above, field by field.
  return error as unknown as ErrorDetail;
}

export function issuePaths(error: ErrorDetail): string[] {
  return (error.issues ?? []).map((i) => i.path);
}

/** The issue at `path`; fails if there is none. */
export function issueAt(error: ErrorDetail, path: string): { path: string; message: string } {
  const issue = error.issues?.find((i) => i.path === path);
  expect(issue, `no issue at ${path}; issues: ${JSON.stringify(error.issues)}`).toBeDefined();
  return issue!;
}

/** The hosts and users a pass names. */
function entityIds(body: PassBody): { hosts: number[]; users: number[] } {
  const results = body.workunits.flatMap((w) => w.results);
  return {
    hosts: [...new Set(results.map((r) => r.host_id))],
    users: [...new Set(results.map((r) => r.user_id).filter((id) => id !== 0))],
  };
}

/** A holder as read, without what changes with the moment of reading. */
function stored(body: Record<string, unknown> & { apps?: Record<string, unknown>[] }) {
  const { as_of: _a, recent_average_credit: _r, snapshot_time: _s, apps, ...rest } = body;
  return apps ? { ...rest, apps: apps.map(({ recent_average_credit: _x, ...a }) => a) } : rest;
}

/** What a failed request must leave untouched: apps, app-version statistics, hosts and users. */
export async function ledgerState(api: Api, hostIds: number[], userIds: number[] = []) {
  const apps = await api.raw("GET", "/apps");
  const versions = await api.raw("GET", "/app-versions");
  const hosts: Record<number, unknown> = {};
  for (const id of hostIds) {
    const res = await api.raw("GET", `/hosts/${id}`);
    hosts[id] = res.status === 200 ? stored(res.body) : res.status;
  }
  const users: Record<number, unknown> = {};
  for (const id of userIds) {
    const res = await api.raw("GET", `/users/${id}`);
    users[id] = res.status === 200 ? stored(res.body) : res.status;
  }
  return { apps: apps.body, app_versions: versions.body, hosts, users };
}

/** No host or user the pass names exists yet (a processed pass creates them all). */
export async function expectNoEntitiesOf(api: Api, body: PassBody): Promise<void> {
  const { hosts, users } = entityIds(body);
  for (const id of hosts) expect((await api.raw("GET", `/hosts/${id}`)).status, `host ${id}`).toBe(404);
  for (const id of users) expect((await api.raw("GET", `/users/${id}`)).status, `user ${id}`).toBe(404);
}

/** App-version statistics of a project as seen before any pass: nothing counted. */
export async function expectUntouchedVersions(api: Api): Promise<void> {
  const { app_versions } = await api.ok("GET", "/app-versions");
  for (const v of app_versions) {
    expect({ id: v.id, pfc_n: v.pfc_n, pfc_avg: v.pfc_avg, expavg_credit: v.expavg_credit }).toEqual({
      id: v.id,
      pfc_n: 0,
      pfc_avg: 0,
      expavg_credit: 0,
    });
  }
}

/** Posting `body` now processes every workunit and result for the first time. */
export async function expectProcessedFresh(api: Api, body: PassBody): Promise<void> {
  const res = await api.ok("POST", "/passes", body);
  expect(res.workunits.map((w) => w.id)).toEqual(body.workunits.map((w) => w.id));
  for (const w of res.workunits) {
    expect(w.replayed, `workunit ${w.id} replayed`).toBe(false);
    for (const r of w.results) expect(r.replayed, `result ${r.id} replayed`).toBe(false);
  }
  const results = res.workunits.flatMap((w) => w.results.map((r) => r.id));
  expect(results).toEqual(body.workunits.flatMap((w) => w.results.map((r) => r.id)));
  // And the pass really was written: its hosts exist now.
  for (const id of entityIds(body).hosts) expect((await api.raw("GET", `/hosts/${id}`)).status).toBe(200);
}

/**
 * The full "nothing was written" check after a rejected pass on a project that had no passes:
 * no host or user of the pass exists, app versions have no statistics, and the same pass made
 * valid (`fixed`) is processed for the first time.
 */
export async function expectNothingWritten(api: Api, fixed: PassBody): Promise<void> {
  await expectNoEntitiesOf(api, fixed);
  await expectUntouchedVersions(api);
  await expectProcessedFresh(api, fixed);
}

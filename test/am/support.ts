/** Account-manager test helpers: an account manager with its token, RPC bodies, series reads. */
import { expect } from "vitest";
import { ADMIN_TOKEN, rawRequest, request, typedClient } from "../support/api";
import type { components } from "../support/api-types";

/** 2024-10-04 00:00:00 UTC: day 20,000. */
export const DAY0 = 20_000;
export const T0 = DAY0 * 86_400;
export const HOUR = 3600;

/** An RPC's body and one project's lifetime totals in it, as the OpenAPI document types them. */
export type RpcBody = components["schemas"]["AmRpc"];
export type ProjectTotalsBody = components["schemas"]["AmProjectTotals"];

export const EINSTEIN = "https://einstein.example/";
export const ROSETTA = "https://rosetta.example/rosetta/";

/** Lifetime totals of one project: zeros unless given. */
export function totals(url: string, over: Partial<ProjectTotalsBody> = {}): ProjectTotalsBody {
  return { url, cpu_ec: 0, cpu_time: 0, gpu_ec: 0, gpu_time: 0, njobs_success: 0, njobs_error: 0, ...over };
}

/** An RPC of a 4-CPU, 1-GPU host of user 7 (unless given). */
export function rpcBody(now: number, projects: ProjectTotalsBody[], over: Partial<RpcBody> = {}): RpcBody {
  return { now, user_id: 7, host: { p_ncpus: 4, p_fpops: 4e9, n_gpus: 1 }, projects, ...over };
}

let count = 0;

export async function createAm(prefix = "am") {
  const slug = `${prefix}-${++count}-${Math.random().toString(36).slice(2, 8)}`;
  const res = await request("POST", "/v1/account-managers", { token: ADMIN_TOKEN, body: { slug, name: `AM ${slug}` } });
  if (res.status !== 201) throw new Error(`create account manager: ${res.status} ${JSON.stringify(res.body)}`);
  const { token } = res.body;
  const rpcRaw = (hostId: number, body: RpcBody) => request("POST", `/v1/am/${slug}/hosts/${hostId}/rpcs`, { token, body });
  return {
    slug,
    token,
    rpcRaw,
    /** An RPC with any body (a spoiled one), answer `unknown`. */
    rpcUntyped: (hostId: number, body: unknown) => rawRequest("POST", `/v1/am/${slug}/hosts/${hostId}/rpcs`, { token, body }),
    /** An RPC that must succeed. */
    async rpc(hostId: number, body: RpcBody) {
      const res = await rpcRaw(hostId, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    },
    /** A daily series (JSON): `what` is e.g. "users/7", "projects", "totals", "hosts/3". */
    async series(what: SeriesOf, query: Record<string, string | number>) {
      const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
      const res = await request("GET", `/v1/am/${slug}/${what}/history?${q}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.days;
    },
    async rpcs(hostId: number) {
      const res = await request("GET", `/v1/am/${slug}/hosts/${hostId}/rpcs`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.rpcs;
    },
  };
}

/** The account manager's daily series: a user's, a host's, per project, or its totals. */
type SeriesOf = "totals" | "projects" | `users/${number}` | `hosts/${number}`;

/** The series' numbers of one day: [ec, total_ec, cpu_time, njobs_success]. */
export function dayNumbers(p: components["schemas"]["AmDay"] | undefined): number[] {
  if (p === undefined) throw new Error("no such day in the series");
  return [p.ec, p.total_ec, p.cpu_time, p.njobs_success];
}

/**
 * A project of this deployment at master URL `url`, with app "a" in credit_mode "fixed" (each
 * valid result is granted its workunit's canonical_credit, so granted credit is known by hand)
 * and app version 1.
 */
export async function projectAt(url: string) {
  const slug = `proj-${Math.random().toString(36).slice(2, 10)}`;
  const res = await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: slug, url } });
  if (res.status !== 201) throw new Error(`create project: ${res.status} ${JSON.stringify(res.body)}`);
  const api = typedClient(slug, res.body.token);
  await api.ok("PUT", "/apps/a", { credit_mode: "fixed" });
  await api.ok("PUT", "/app-versions/1", { app: "a", platform: "linux", plan_class: "", version_num: 1 });
  return api;
}

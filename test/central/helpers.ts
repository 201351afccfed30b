/** Helpers for the cross-project tests: central tokens, pushes, running a cron job at a given time. */
import { exports } from "cloudflare:workers";
import { ADMIN_TOKEN, type ApiResponse, rawRequest, request } from "../support/api";
import { runCron as runScheduled } from "../support/cron";

export const DAY = 86400;
export const WEEK = 7 * DAY;

/** The admin issues a central token to a project elsewhere. */
export async function issueCentralToken(name: string): Promise<{ id: number; token: string }> {
  const res = await request("POST", "/v1/central/contributors", { token: ADMIN_TOKEN, body: { name } });
  if (res.status !== 201) throw new Error(`issue token: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, token: res.body.token };
}

/** POST /v1/central/app-versions with any body and content type. */
export function push(
  token: string | undefined,
  body: string,
  contentType: string | undefined = "application/json",
  query = "",
): Promise<ApiResponse> {
  return rawRequest("POST", `/v1/central/app-versions${query}`, { token, rawBody: body, contentType: contentType ?? null });
}

/** One app version as BOINC's app_versions.php reports it (JSON field names). */
export function reported(
  id: number,
  app: string,
  planClass: string,
  over: { pfc_n?: number; pfc_scale?: number; expavg_credit?: number; expavg_time?: number } = {},
) {
  return {
    id,
    app,
    platform: "x86_64-pc-linux-gnu",
    plan_class: planClass,
    version_num: 100,
    pfc_n: 500,
    pfc_avg: 1,
    pfc_scale: 1,
    expavg_credit: 100,
    expavg_time: 0,
    ...over,
  };
}

/** Runs the scheduled handler for `cron` with the job's `now` = `at` (Unix seconds). */
export function runCron(cron: string, at: number): Promise<void> {
  return runScheduled(cron, at * 1000);
}

export const PLAN_CLASS_CRON = "20 0 * * *";
export const STATS_CRON = "40 0 * * *";

/** A time to run jobs at: the clock, in whole seconds. */
export function clockNow(): number {
  return Math.floor(Date.now() / 1000);
}

/** A public GET, as the raw Response (for headers and non-JSON bodies). */
export function getRaw(path: string): Promise<Response> {
  return exports.default.fetch(`http://cobblestone.test${path}`);
}

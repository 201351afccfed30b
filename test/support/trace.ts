import type { z } from "zod";
import type { ResultSchema, WorkunitSchema } from "../../src/routes/passes/passes.schemas";

/** The traces' line format (test/fixtures/traces/README.md) and its mapping to API shapes. */
export type TraceOp =
  | {
      op: "app";
      name: string;
      host_scale_check: boolean;
      target_nresults?: number;
      min_avg_pfc?: number;
      credit_policy?: "boinc" | "fair";
    }
  | { op: "app_version"; id: number; app: string; platform: string; plan_class: string; version_num: number }
  | { op: "pass"; now: number; workunits: TraceWorkunit[] }
  | { op: "rescale"; now: number }
  | {
      op: "error";
      now: number;
      host_id: number;
      app_version_id: number;
      app?: string;
      kind?: "client_error" | "timeout";
      delay_bound?: number;
    }
  | { op: "send"; now: number; host_id: number; app_version_id: number; app?: string };

/** A pass line's workunits are exactly the API's Workunit shape. */
export type TraceResult = z.input<typeof ResultSchema>;
export type TraceWorkunit = z.input<typeof WorkunitSchema>;

export interface TraceExpected {
  results: { id: number; granted_credit: number }[];
  workunits: { id: number; credit: number }[];
  apps: { name: string; min_avg_pfc: number }[];
  app_versions: {
    id: number;
    pfc_n: number;
    pfc_avg: number;
    pfc_scale: number;
    expavg_credit: number;
    expavg_time: number;
  }[];
  host_app_versions: {
    host_id: number;
    app_version_id: number;
    pfc_n: number;
    pfc_avg: number;
    et_n: number;
    et_avg: number;
    et_var: number;
    turnaround_n: number;
    turnaround_avg: number;
    consecutive_valid: number;
  }[];
  hosts: TraceEntity[];
  users: TraceEntity[];
  teams: TraceEntity[];
}

export interface TraceEntity {
  id: number;
  total_credit: number;
  expavg_credit: number;
  expavg_time: number;
}

export function parseTrace(text: string): TraceOp[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as TraceOp);
}

/** BOINC folds an anonymous-platform id into appid·1e6 − k; the API lists it as k with its app. */
export function foldAnonymousId(appNumber: number, appVersionId: number): number {
  return appVersionId < 0 ? appNumber * 1_000_000 - appVersionId : appVersionId;
}

/** Relative difference, with an absolute floor for values that should be zero. */
export function relativeError(actual: number, expected: number): number {
  if (actual === expected) return 0;
  const scale = Math.max(Math.abs(expected), Math.abs(actual));
  return scale < 1e-300 ? 0 : Math.abs(actual - expected) / scale;
}

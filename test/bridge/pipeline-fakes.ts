/**
 * In-memory stand-ins for the service, the write-back and the state file, for the unit tests of
 * the run's parts (request pipeline, round, follow loop): every call is recorded in one log, in
 * the order it happened, so a test reads the order of posts, writes and saves from it.
 */
import type { PassBatchAnswer } from "../../bridge/write-back/answer-grants";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { type PassBody, callsForSecond } from "../../bridge/service/second-calls";
import { RequestPipeline, type RequestPipelineParts } from "../../bridge/running/request-pipeline";
import type { ResultRow } from "../../bridge/database/rows";
import { type BridgeState, freshState } from "../../bridge/running/state";
import { grantsOfAnswer } from "../../bridge/write-back/answer-grants";
import { BOINC_DEFAULT_CAPS, CreditCeilings } from "../../bridge/write-back/credit-bounds";
import type { Grant } from "../../bridge/write-back/write-back";

export const KNOWN = new Map([[1, "alpha"]]);

/** A valid success of its own workunit (id = workunit id), validated at `modTime`. */
export function row(id: number, modTime: number, extra: Partial<ResultRow> = {}): ResultRow {
  return {
    id,
    mod_time: modTime,
    workunit_id: id,
    app_id: 1,
    app: "alpha",
    rsc_fpops_est: 1e13,
    rsc_fpops_bound: 1e14,
    target_nresults: 1,
    delay_bound: 86400,
    host_id: 7,
    user_id: 3,
    team_id: 5,
    app_version_id: 1,
    elapsed_time: 1000,
    cpu_time: 900,
    flops_estimate: 1e10,
    sent_time: Math.max(0, modTime - 5000),
    received_time: Math.max(0, modTime - 10),
    validate_state: VALIDATE_STATE.valid,
    outcome: OUTCOME.success,
    exit_status: 0,
    runtime_outlier: 0,
    granted_credit: 0,
    ...extra,
  };
}

/** The pass of one second's rows, as the round builds it. */
export function passOf(rows: ResultRow[], now: number): { pass: PassBody; granted: ReturnType<typeof callsForSecond>["boincGranted"] } {
  const calls = callsForSecond(now, rows, KNOWN);
  return { pass: calls.passes[0]!, granted: calls.boincGranted };
}

/** The service's answer: every valid result granted `credit`, nothing replayed. */
export function answerOf(passes: PassBody[], credit = 10): PassBatchAnswer {
  return {
    passes: passes.map((p) => ({
      now: p.now!,
      workunits: p.workunits.map((w) => ({
        id: w.id,
        credit,
        replayed: false,
        path: "fresh" as const,
        results: w.results.map((r) => ({
          id: r.id,
          validate_state: r.validate_state,
          granted_credit: r.validate_state === "valid" ? credit : 0,
          claimed_credit: null,
          pfc_mode: null,
          replayed: false,
        })),
      })),
    })),
  };
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(e: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
}

/** Lets every callback that is ready run (promise reactions and the timers due now). */
export const idle = () => new Promise<void>((r) => setTimeout(r, 0));
export const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A request named by its passes' times: "1-2". */
export const nameOf = (passes: PassBody[]) => passes.map((p) => p.now).join("-");
const grantsName = (grants: Grant[]) => [...new Set(grants.map((g) => g.time))].join("-");

export interface FakeWorld {
  log: string[];
  /** Each request's answer, in the order posted: held until the test settles it (`hold`), or after `postMs`. */
  posts: Deferred<PassBatchAnswer>[];
  parts: RequestPipelineParts;
  saved: BridgeState;
}

export interface FakeOptions {
  /** Posts wait for the test (world.posts[i].resolve); else they answer after postMs. */
  hold?: boolean;
  postMs?: number;
  writeMs?: number;
  /** The write of this request (by name) fails. */
  failWrite?: string;
  /** The post of this request (by name) fails. */
  failPost?: string;
  dryRun?: boolean;
  writeBack?: boolean;
  passesPerRequest?: number;
  beforeWrite?: () => Promise<void>;
}

/** A pipeline over the fakes, and the log they keep. */
export function fakePipeline(o: FakeOptions = {}): { pipeline: RequestPipeline; world: FakeWorld } {
  const log: string[] = [];
  const posts: Deferred<PassBatchAnswer>[] = [];
  const saved = freshState("http://service", "demo", 0);
  const parts: RequestPipelineParts = {
    post: o.dryRun
      ? null
      : async (passes) => {
          const name = nameOf(passes);
          log.push(`post ${name}`);
          const d = deferred<PassBatchAnswer>();
          posts.push(d);
          if (!o.hold)
            setTimeout(
              () => (name === o.failPost ? d.reject(new Error(`post ${name} failed`)) : d.resolve(answerOf(passes))),
              o.postMs ?? 0,
            );
          const answer = await d.promise;
          log.push(`answer ${name}`);
          return answer;
        },
    grants: (request, answer) => grantsOfAnswer(request.passes, answer, request.rows, new CreditCeilings(BOINC_DEFAULT_CAPS, [])),
    write:
      o.writeBack === false
        ? null
        : async (grants) => {
            const name = grantsName(grants);
            log.push(`write ${name}`);
            await wait(o.writeMs ?? 0);
            if (name === o.failWrite) {
              log.push(`write ${name} failed`);
              throw new Error(`write ${name} failed`);
            }
            log.push(`wrote ${name}`);
            return grants.length;
          },
    written: (request, written) => log.push(`written ${nameOf(request.passes)}: ${written}`),
    save: async (state) => {
      log.push(`save ${state.cursor.mod_time}`);
    },
    beforeWrite: o.beforeWrite,
    keepRows: true,
    passesPerRequest: o.passesPerRequest ?? 1,
  };
  return { pipeline: new RequestPipeline(saved, parts), world: { log, posts, parts, saved } };
}

/** One second as the round hands it over: its pass, then the cursor at its last row. */
export async function second(pipeline: RequestPipeline, t: number, rows: ResultRow[] = [row(t, t)]): Promise<void> {
  const { pass, granted } = passOf(rows, t);
  await pipeline.add(pass, granted, rows);
  pipeline.next.cursor = { mod_time: t, id: rows.at(-1)!.id };
}

/** The log's lines that start with one of `kinds`, in order. */
export const only = (log: string[], ...kinds: string[]) => log.filter((l) => kinds.some((k) => l === k || l.startsWith(`${k} `)));

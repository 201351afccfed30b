/**
 * The service's answer to a request of passes, reconciled with the request before anything of it
 * is written (docs/bridge.md, "What the bridge refuses"): as many passes as posted; in each, every
 * result posted exactly once, none that was not, each with the validate_state posted; every valid
 * one with a credit BOINC would grant (credit-bounds.ts). Otherwise the whole request is refused,
 * naming the results: a result left out of an answer would stay unpaid for good once the cursor
 * passed it, and a credit out of bounds would poison the host's, user's and team's totals. Pure.
 */
import { CREDIT_ROUNDING, type CreditCeilings, creditProblem } from "./credit-bounds";
import { BridgeError } from "../shared/errors";
import type { PassBatchAnswer, PassBody } from "../service/second-calls";

/** Problems named one by one in the refusal; the rest are counted. */
const NAMED = 10;

/** How the bridge names a request of passes in its messages: `POST 3 passes at 1700000000…1700000002`. */
export function requestName(passes: readonly Pick<PassBody, "now">[]): string {
  const span = `${passes[0]?.now}${passes.length > 1 ? `…${passes.at(-1)!.now}` : ""}`;
  return `POST ${passes.length} pass${passes.length === 1 ? "" : "es"} at ${span}`;
}

interface Posted {
  app: string;
  /** The ceiling of its credit (credit-bounds.ts): its app's, lowered for a runtime app by its workunit's bound. */
  ceiling: number;
  validate_state: string;
  answered: number;
  /** A fixed app's workunit canonical_credit, a post-assigned app's claimed_credit: the credit BOINC grants, known before the answer. */
  stated: number | undefined;
}

export const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null;

/** A refusal's list of problems: the first NAMED one a line, then how many more. */
export function listedProblems(problems: readonly string[]): string {
  const more = problems.length > NAMED ? `\n  … and ${problems.length - NAMED} more` : "";
  return `  ${problems.slice(0, NAMED).join("\n  ")}${more}`;
}

/** Every way the answer fails its request, as lines naming the result (empty: it is sound). */
export function answerProblems(passes: readonly PassBody[], answer: unknown, ceilings: CreditCeilings): string[] {
  const answered = isObject(answer) && Array.isArray(answer.passes) ? (answer.passes as unknown[]) : null;
  if (!answered) return ["the answer has no list of passes"];
  const problems: string[] = [];
  if (answered.length !== passes.length) {
    problems.push(`it answers ${answered.length} pass${answered.length === 1 ? "" : "es"} to the ${passes.length} posted`);
  }
  for (const [i, pass] of passes.entries()) {
    const posted = new Map<number, Posted>();
    for (const w of pass.workunits)
      for (const r of w.results)
        posted.set(r.id, {
          app: w.app,
          ceiling: ceilings.ofWorkunit(w.app, w.rsc_fpops_bound),
          validate_state: r.validate_state,
          answered: 0,
          stated: w.canonical_credit ?? r.claimed_credit,
        });
    const got = answered[i];
    const workunits = isObject(got) && Array.isArray(got.workunits) ? (got.workunits as unknown[]) : null;
    if (got !== undefined && !workunits) problems.push(`its pass ${i + 1} (at ${pass.now}) has no list of workunits`);
    for (const w of workunits ?? []) {
      const results = isObject(w) && Array.isArray(w.results) ? (w.results as unknown[]) : [];
      for (const r of results) {
        const id = isObject(r) ? r.id : undefined;
        const p = typeof id === "number" ? posted.get(id) : undefined;
        if (!p) {
          problems.push(`result ${JSON.stringify(id)} is answered in the pass at ${pass.now} but was not posted in it`);
          continue;
        }
        if (++p.answered === 2) problems.push(`result ${id} (app ${p.app}) is answered more than once`);
        if (p.answered > 1) continue;
        const state = (r as Record<string, unknown>).validate_state;
        if (state !== p.validate_state) {
          problems.push(`result ${id} (app ${p.app}) was posted ${p.validate_state} and answered ${JSON.stringify(state)}`);
        } else if (state === "valid") {
          const credit = (r as Record<string, unknown>).granted_credit;
          const why = creditProblem(credit, p.ceiling) ?? statedProblem(credit as number, p);
          if (why) problems.push(`result ${id} (app ${p.app}): granted_credit ${why}`);
        }
      }
    }
    const missing = [...posted].filter(([, p]) => p.answered === 0).map(([id]) => id);
    if (missing.length > 0) {
      const shown = missing.slice(0, 20).join(", ");
      problems.push(
        `result${missing.length === 1 ? "" : "s"} ${shown}${missing.length > 20 ? ` and ${missing.length - 20} more` : ""} posted in the pass at ${pass.now} ${missing.length === 1 ? "is" : "are"} missing from the answer`,
      );
    }
  }
  return problems;
}

/**
 * A fixed or post-assigned credit is BOINC's, read from the workunit and posted with the result:
 * the service grants it as posted (capped where the ceiling is lower), so any other answer is not
 * BOINC's credit, replayed or not (a result the service paid earlier under another credit mode
 * comes back with that credit, and is refused too).
 */
function statedProblem(credit: number, p: Posted): string | null {
  if (p.stated === undefined) return null;
  const expected = Math.min(p.stated, p.ceiling);
  if (Math.abs(credit - expected) <= CREDIT_ROUNDING * Math.max(1, expected)) return null;
  return `${credit} is not the credit BOINC grants it, ${expected} (the workunit's canonical_credit as posted)`;
}

/** Throws a BridgeError naming the results when the answer fails its request; nothing of the request is written then. */
export function refuseUnreconciled(passes: readonly PassBody[], answer: PassBatchAnswer, ceilings: CreditCeilings): void {
  const problems = answerProblems(passes, answer, ceilings);
  if (problems.length === 0) return;
  throw new BridgeError(
    `the service's answer to ${requestName(passes)} does not match the request, so none of it is written:\n${listedProblems(problems)}\n` +
      "Nothing of this request was written into the BOINC database and the cursor was not moved: the next run posts the same request again. " +
      "A service that answers so is faulty or is not this project's Cobblestone service (check --url and --project).",
  );
}

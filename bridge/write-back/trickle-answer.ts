/**
 * The service's answer to a batch of trickle messages, reconciled with the batch before anything
 * of it is counted or written (docs/bridge.md, "What the bridge refuses in an answer"): every
 * message posted answered exactly once and none that was not, each with a credit BOINC's
 * trickle handler could pay it. That handler pays the runtime, cut at its --max_runtime, times
 * the host's p_fpops, lowered to the project's 95th percentile when above it; a host whose
 * benchmark is unknown (negative) gets the 50th percentile, which no host's p_fpops exceeds the
 * largest of. So the most a message can earn is known to the bridge without the percentiles, and
 * a credit above it would poison the host's, owner's and team's totals. Pure.
 */
import { pfcToCreditExpanded } from "../../src/credit/pfc";
import { BridgeError } from "../shared/errors";
import { isObject, listedProblems } from "./answer-check";
import { CREDIT_ROUNDING, creditProblem } from "./credit-bounds";

/** One message as posted: its runtime (as sent) and its host's p_fpops as the bridge registered it. */
export interface PostedTrickle {
  id: number;
  runtime: number;
  hostFpops: number;
}

/** The most BOINC's handler pays `message`: runtime cut at `maxRuntime` × the host's FLOPS, or the project's largest when the host's is unknown. */
export function trickleCeiling(message: PostedTrickle, maxRuntime: number, largestFpops: number): number {
  const flops = message.hostFpops >= 0 ? message.hostFpops : Math.max(0, largestFpops);
  return pfcToCreditExpanded(Math.min(message.runtime, maxRuntime) * flops);
}

/** Every way `answer` fails the batch `posted`, as lines naming the message (empty: it is sound). */
export function trickleAnswerProblems(
  posted: readonly PostedTrickle[],
  answer: unknown,
  maxRuntime: number,
  largestFpops: number,
): string[] {
  const messages = isObject(answer) && Array.isArray(answer.messages) ? (answer.messages as unknown[]) : null;
  if (!messages) return ["the answer has no list of messages"];
  const problems: string[] = [];
  const byId = new Map(posted.map((m) => [m.id, m]));
  const answered = new Map<number, number>();
  for (const m of messages) {
    const id = isObject(m) ? m.id : undefined;
    const message = typeof id === "number" ? byId.get(id) : undefined;
    if (!message) {
      problems.push(`message ${JSON.stringify(id)} is answered but was not posted`);
      continue;
    }
    answered.set(message.id, (answered.get(message.id) ?? 0) + 1);
    const credit = (m as Record<string, unknown>).granted_credit;
    const ceiling = trickleCeiling(message, maxRuntime, largestFpops);
    // Not a number, or negative: as for a result (credit-bounds.ts); above the handler's most: named with its terms.
    const why = creditProblem(credit, Infinity);
    if (why) problems.push(`message ${message.id}: granted_credit ${why}`);
    else if ((credit as number) > ceiling * (1 + CREDIT_ROUNDING)) {
      problems.push(
        `message ${message.id}: granted_credit ${credit as number} is more than BOINC's trickle handler pays it (${ceiling}: ${Math.min(message.runtime, maxRuntime)} s at ${message.hostFpops >= 0 ? message.hostFpops : `the project's largest ${largestFpops}`} FLOPS)`,
      );
    }
  }
  for (const m of posted) {
    const n = answered.get(m.id) ?? 0;
    if (n === 0) problems.push(`message ${m.id} is missing from the answer`);
    else if (n > 1) problems.push(`message ${m.id} is answered ${n} times`);
  }
  return problems;
}

/** Throws a BridgeError naming the messages when the answer fails its batch; nothing of the batch is written or counted then. */
export function refuseUnreconciledTrickles(
  posted: readonly PostedTrickle[],
  answer: unknown,
  maxRuntime: number,
  largestFpops: number,
): void {
  const problems = trickleAnswerProblems(posted, answer, maxRuntime, largestFpops);
  if (problems.length === 0) return;
  const ids = posted.map((m) => m.id);
  throw new BridgeError(
    `the service's answer to POST ${posted.length} trickle message${posted.length === 1 ? "" : "s"} (ids ${Math.min(...ids)}…${Math.max(...ids)}) does not match the request, so none of it is written:\n${listedProblems(problems)}\n` +
      "Nothing of this batch was written into the BOINC database and the trickle cursor was not moved: the next run posts the same messages again. " +
      "A service that answers so is faulty or is not this project's Cobblestone service (check --url and --project).",
  );
}

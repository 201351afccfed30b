/**
 * The integer codes that stand for enum strings in stored rows (results, trickles): one byte
 * or none on disk instead of a string. A code is its value's position in the list, so a list
 * only ever grows at its end (stored rows keep their meaning); migration 0013 maps the strings
 * rows held before. Reads decode, writes encode, here and nowhere else; the API answers with
 * the strings.
 */
import type { ErrorOutcome } from "../credit/error-outcome";
import { FAIR_RULES } from "../credit/fair-claim";
import type { PfcMode } from "../credit/pfc";
import type { FlopsSource } from "../credit/trickle";

/** A list of codes for every value of T: a value added to T without a code is a type error here. */
function codesFor<T extends string>() {
  return <const L extends readonly T[]>(
    list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> }),
  ): L => list;
}

/**
 * A result's final outcome: its verdict (a "success" BOINC validated) or its error outcome. A
 * valid result whose credit was claimed (adaptive and the other claiming modes) is "valid" and
 * has its workunit's credit under each policy stored; one without a claim is "valid_unclaimed".
 */
export const RESULT_OUTCOMES = codesFor<"valid" | "invalid" | ErrorOutcome | "valid_unclaimed">()([
  "valid",
  "invalid",
  "error",
  "timeout",
  "aborted",
  "valid_unclaimed",
]);
export type ResultOutcomeName = (typeof RESULT_OUTCOMES)[number];

export function validOutcome(outcome: ResultOutcomeName): boolean {
  return outcome === "valid" || outcome === "valid_unclaimed";
}

export const PFC_MODES = codesFor<PfcMode>()(["normal", "approx", "wu_est", "invalid"]);

/** credit/fair-claim.ts's list, whose order is the codes (new rules go at its end). */
export const FAIR_RULE_CODES = FAIR_RULES;

export const FLOPS_SOURCES = codesFor<FlopsSource>()(["host", "p50", "p95"]);

export function encode<T extends string>(list: readonly T[], value: T): number {
  const code = list.indexOf(value);
  if (code < 0) throw new Error(`no code for '${value}'`);
  return code;
}

export function decode<T extends string>(list: readonly T[], code: number): T {
  const value = list[code];
  if (value === undefined) throw new Error(`unknown code ${code}`);
  return value;
}

export function encodeNullable<T extends string>(list: readonly T[], value: T | null | undefined): number | null {
  return value === null || value === undefined ? null : encode(list, value);
}

export function decodeNullable<T extends string>(list: readonly T[], code: number | null): T | null {
  return code === null ? null : decode(list, code);
}

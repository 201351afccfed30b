/**
 * fast-check generators for the API fuzz: well-formed passes over a small pool of ids (so
 * passes overlap: the same hosts, users, app versions, results), adversarial values, and
 * mutations of a body as a JSON value or as text.
 */
import fc from "fast-check";

/** The fuzz's clock: passes validate at T (plus a little), results were received before. */
export const T = 1_700_000_000;

/** App "a" (versions 1, 2) for most workunits, "g" (version 3) for every fourth: a workunit keeps its app. */
export const appOf = (wuId: number) => (wuId % 4 === 0 ? "g" : "a");

const resultArb = (wuId: number, k: number) =>
  fc.record({
    id: fc.constant(wuId * 10 + k),
    host_id: fc.integer({ min: 1, max: 6 }),
    user_id: fc.integer({ min: 1, max: 3 }),
    team_id: fc.integer({ min: 0, max: 2 }),
    app_version_id: appOf(wuId) === "g" ? fc.constant(3) : fc.constantFrom(1, 2),
    elapsed_time: fc.double({ min: 1, max: 1e5, noNaN: true }),
    cpu_time: fc.double({ min: 0, max: 1e5, noNaN: true }),
    flops_estimate: fc.double({ min: 1e8, max: 1e11, noNaN: true }),
    sent_time: fc.integer({ min: T - 200_000, max: T - 100_000 }),
    received_time: fc.integer({ min: T - 99_999, max: T }),
    validate_state: fc.constantFrom("valid", "valid", "valid", "invalid", "inconclusive"),
  });

const workunitArb = (wuId: number) =>
  fc.integer({ min: 1, max: 3 }).chain((n) =>
    fc.tuple(...Array.from({ length: n }, (_, k) => resultArb(wuId, k + 1))).map((results) => ({
      id: wuId,
      app: appOf(wuId),
      rsc_fpops_est: 3e12,
      rsc_fpops_bound: 3e13,
      target_nresults: 2,
      results,
    })),
  );

/** A valid pass of 1–3 workunits with ids in [1, maxWu]. */
export const passArb = (maxWu: number) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: maxWu }), { minLength: 1, maxLength: 3 })
    .chain((ids) => fc.tuple(fc.integer({ min: 0, max: 1000 }), ...ids.map(workunitArb)))
    .map(([dt, ...workunits]) => ({ now: T + dt, workunits }));

const deep = (depth: number): unknown => (depth === 0 ? 1 : [deep(depth - 1)]);

/** Values that break naive code: wrong types, extremes, NaN/Infinity as strings, unicode, nesting. */
export const weirdArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    -1,
    0,
    -0,
    0.5,
    2 ** 53,
    2 ** 53 + 2,
    2 ** 64,
    1e308,
    -1e308,
    Number.MIN_VALUE,
    1e11 + 1,
    -1e12,
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "12",
    "",
    "ünï©ødé 🚀",
    "\u0000\u202e",
    "<script>alert(1)</script>",
    null,
    true,
    false,
    [],
    {},
    deep(60),
    "x".repeat(10_000),
    { __proto__: { polluted: true } },
    ["valid"],
  ),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.double(),
  fc.integer(),
);

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

/** An object or array inside a JSON body, indexed by key or position. */
type Container = Record<string | number, unknown>;

export type Mutation = "replace" | "delete" | "unknown_key" | "duplicate" | "empty";

/** Applies one mutation at the `pick`-th path of a copy of `body`. */
export function mutate(body: unknown, pick: number, how: Mutation, value: unknown): unknown {
  const copy = structuredClone(body);
  const paths = pathsOf(copy).slice(1);
  if (paths.length === 0) return value;
  const path = paths[pick % paths.length]!;
  // Every path but the last step leads through objects and arrays (pathsOf walked them).
  const parent = path.slice(0, -1).reduce<Container>((node, key) => node[key] as Container, copy as Container);
  const key = path[path.length - 1]!;
  const target = parent[key];
  switch (how) {
    case "replace":
      parent[key] = value;
      break;
    case "delete":
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    case "unknown_key":
      if (target !== null && typeof target === "object" && !Array.isArray(target)) (target as Container).sneaky = value;
      else parent[key] = { sneaky: value };
      break;
    case "duplicate":
      if (Array.isArray(parent)) parent.push(structuredClone(target));
      else if (Array.isArray(target) && target.length > 0) target.push(structuredClone(target[0]));
      else parent[key] = [target, target];
      break;
    case "empty":
      parent[key] = Array.isArray(target) ? [] : typeof target === "object" ? {} : "";
      break;
  }
  return copy;
}

export const mutationArb = fc.constantFrom<Mutation>("replace", "replace", "replace", "delete", "unknown_key", "duplicate", "empty");

export type TextMutation = "truncate" | "overflow" | "beyond_2_53" | "deep" | "garbage" | "duplicate_key";

/** Mutations of the JSON text itself (things JSON.stringify can't produce). */
export function mutateText(text: string, pick: number, how: TextMutation): string {
  const numbers = [...text.matchAll(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi)];
  const at = numbers.length ? numbers[pick % numbers.length]! : undefined;
  const swap = (to: string) => (at ? text.slice(0, at.index!) + to + text.slice(at.index! + at[0].length) : text);
  switch (how) {
    case "truncate":
      return text.slice(0, pick % Math.max(1, text.length));
    case "overflow":
      return swap(pick % 2 ? "1e400" : "-1e400");
    case "beyond_2_53":
      return swap("9007199254740993");
    case "deep": {
      const n = 1 + (pick % 20_000);
      return `{"workunits":${"[".repeat(n)}${"]".repeat(n)}}`;
    }
    case "garbage":
      return text.slice(0, pick % text.length) + "\u0000}{,:" + text.slice(pick % text.length);
    case "duplicate_key":
      return text.replace(/^\{/, '{"workunits":[],');
  }
}

export const textMutationArb = fc.constantFrom<TextMutation>("truncate", "overflow", "beyond_2_53", "deep", "garbage", "duplicate_key");

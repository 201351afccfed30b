/**
 * Checked by `npm run typecheck` (tsc over test/), not run: the tests' calls take only the body
 * the OpenAPI document gives their method and path (test/support/api-types.ts), so a test that
 * sends a wrong shape does not compile; a spoiled body goes only through an untyped call
 * (`rawRequest`, `api.untyped`, `callWithRaw`). And the app's type, `AppType` (src/app.ts), keeps
 * every route of the document. Each @ts-expect-error fails the typecheck if its line compiles.
 */
import type { ExtractSchema } from "hono/types";
import type { AppType } from "../../src/app";
import { type Api, spoil, validPass } from "../support/api-helpers";
import { callRow, rawRequest, request } from "../support/api";
import type { paths } from "../support/api-types";
import { send } from "../support/send";
import { callWith } from "../security/support";

export async function projectCalls(api: Api) {
  await api.ok("PUT", "/apps/a", { host_scale_check: false });
  await api.ok("POST", "/passes", validPass());
  await api.ok("POST", "/rescale");
  await api.ok("GET", "/apps");

  // @ts-expect-error host_scale_check is a boolean
  await api.ok("PUT", "/apps/a", { host_scale_check: "yes" });
  // @ts-expect-error an app has no colour
  await api.ok("PUT", "/apps/a", { colour: "red" });
  // @ts-expect-error version_num is required
  await api.ok("PUT", "/app-versions/1", { app: "a", platform: "linux", plan_class: "" });
  // @ts-expect-error a pass has a body
  await api.ok("POST", "/passes");
  // @ts-expect-error a GET has none
  await api.ok("GET", "/apps", {});
  const [wu] = validPass().workunits;
  // @ts-expect-error validate_state is one of the documented verdicts
  await api.ok("POST", "/passes", { workunits: [{ ...wu!, results: [{ ...wu!.results[0]!, validate_state: "maybe" }] }] });
  // @ts-expect-error `raw` reads an error answer, but its body is typed too: workunits is required
  await api.raw("POST", "/passes", { now: 6000 });
  const spoiled = spoil(validPass(), (p) => (p.extra = 1));
  // @ts-expect-error a spoiled body is `unknown`
  await api.raw("POST", "/passes", spoiled);

  // What a test spoils on purpose goes untyped.
  await api.untyped("POST", "/passes", spoiled);
  await api.untyped("POST", "/passes", { now: 6000 });
}

export async function otherCalls(slug: string, token: string) {
  await request("PUT", `/v1/projects/${slug}/holder-reads`, { token, body: { holder_reads: "live" } });
  // @ts-expect-error holder_reads is "snapshots" or "live"
  await request("PUT", `/v1/projects/${slug}/holder-reads`, { token, body: { holder_reads: "kv" } });
  // @ts-expect-error no documented route takes this body
  await request("POST", "/v1/nowhere", { body: {} });
  await rawRequest("POST", "/v1/nowhere", { body: {} });

  // @ts-expect-error a project's name is required
  callRow("POST", "/v1/projects", token, { slug: "x" });
  // @ts-expect-error tier is one of the documented tiers
  await callWith({}, "PUT", `/v1/projects/${slug}/rate-limit`, { token, body: { tier: "unlimited" } });
  // @ts-expect-error the Node-side `send` checks its body too
  await send("http://localhost", "PUT", `/v1/projects/${slug}/apps/a`, token, { credit_mode: "generous" });
}

/** `/v1/projects/{slug}/passes` as Hono writes it: `/v1/projects/:slug/passes`. */
type HonoPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}` ? `${Head}:${Name}${HonoPath<Tail>}` : P;

/** The methods a path of the document has (openapi-typescript marks the others `?: never`). */
type Methods<T> = { [M in keyof T & ("get" | "put" | "post" | "delete" | "patch")]: undefined extends T[M] ? never : M }[keyof T &
  ("get" | "put" | "post" | "delete" | "patch")];

type Routes = ExtractSchema<AppType>;

/** Whether `AppType` carries operation `M` of path `P`. */
type Carries<P extends string, M extends string> =
  HonoPath<P> extends keyof Routes ? (`$${M}` extends keyof Routes[HonoPath<P>] ? true : false) : false;

/** Each documented operation that `AppType` does not carry, as "method path". */
type Untyped = {
  [P in keyof paths & string]: { [M in Methods<paths[P]>]: Carries<P, M> extends true ? never : `${M} ${P}` }[Methods<paths[P]>];
}[keyof paths & string];

/** Compiles only for `never`. */
type None<T extends never> = T;

// Fails naming an operation whose types the app's routers dropped (a route mounted without chaining).
export type EveryRouteTyped = None<Untyped>;

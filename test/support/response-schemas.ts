/**
 * Every 2xx JSON answer the tests get through the API helpers (`request`, `rawRequest`,
 * `typedClient`: test/support/api.ts; `callWith`: test/security/support.ts) is recorded, and
 * after each test checked against the response schema its route declares (the zod shapes of
 * src/routes/, which are the OpenAPI document): a body that drifts from the documented
 * contract fails the test that got it, naming the route and the zod issue. A field the schema
 * does not name fails too (zod would strip it silently). The check runs in the test isolate on
 * the bodies the tests already fetched: no request of its own.
 */
import type { RouteConfig } from "@hono/zod-openapi";
import type { ZodType } from "zod";

interface Recorded {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

let recorded: Recorded[] = [];

/** Keeps a 2xx JSON answer for the check after the test (`checkRecordedResponses`). */
export function recordResponse(method: string, path: string, res: Response, body: unknown): void {
  if (res.status < 200 || res.status > 299) return;
  if (!res.headers.get("Content-Type")?.startsWith("application/json")) return;
  recorded.push({ method: method.toLowerCase(), path: new URL(path, "http://x").pathname, status: res.status, body });
}

interface Route {
  method: string;
  pattern: RegExp;
  /** Parameters in the path: the fewest wins when two templates match (`/apps` over `/{kind}`). */
  params: number;
  route: RouteConfig;
}

let routes: Route[] | null = null;

async function routeTable(): Promise<Route[]> {
  // Imported on first use, so a test file that never calls the API (test/credit/) does not load the Worker.
  const { app } = await import("../../src/app");
  routes ??= app.openAPIRegistry.definitions.flatMap((d) =>
    d.type === "route"
      ? [
          {
            method: d.route.method,
            pattern: new RegExp(`^${d.route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
            params: (d.route.path.match(/\{/g) ?? []).length,
            route: d.route,
          },
        ]
      : [],
  );
  return routes;
}

/** The declared JSON schema of a route's answer with `status`, if it declares one. */
function responseSchema(route: RouteConfig, status: number): ZodType | undefined {
  const response = route.responses[status] ?? route.responses[String(status)];
  if (!response || !("content" in response) || !response.content) return undefined;
  const media = response.content["application/json"];
  const schema = media && "schema" in media ? media.schema : undefined;
  return schema && "safeParse" in schema ? (schema as ZodType) : undefined;
}

/** Paths (a.b[2].c) of the fields of `sent` that the parsed value `kept` dropped: fields no schema names. */
function undocumentedFields(sent: unknown, kept: unknown, at = ""): string[] {
  if (Array.isArray(sent) && Array.isArray(kept)) return sent.flatMap((v, i) => undocumentedFields(v, kept[i], `${at}[${i}]`));
  if (sent === null || kept === null || typeof sent !== "object" || typeof kept !== "object") return [];
  return Object.entries(sent).flatMap(([key, value]) => {
    const path = at ? `${at}.${key}` : key;
    return key in kept ? undocumentedFields(value, (kept as Record<string, unknown>)[key], path) : [path];
  });
}

/** Checks the answers recorded since the last call; one line per answer off its schema. */
export async function checkRecordedResponses(): Promise<string[]> {
  const answers = recorded;
  recorded = [];
  if (answers.length === 0) return [];
  const table = await routeTable();
  const failures: string[] = [];
  for (const a of answers) {
    const match = table.filter((r) => r.method === a.method && r.pattern.test(a.path)).sort((x, y) => x.params - y.params)[0];
    if (!match) continue; // not an API route (/health is one; the pages are not JSON)
    const where = `${a.method.toUpperCase()} ${match.route.path} (${a.path}) ${a.status}`;
    const schema = responseSchema(match.route, a.status);
    if (!schema) {
      failures.push(`${where}: the route declares no JSON answer with this status`);
      continue;
    }
    const parsed = schema.safeParse(a.body);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`);
      failures.push(`${where}: ${issues.join("; ")}`);
      continue;
    }
    const extra = undocumentedFields(a.body, parsed.data);
    if (extra.length > 0) failures.push(`${where}: fields the schema does not name: ${extra.slice(0, 5).join(", ")}`);
  }
  return failures;
}

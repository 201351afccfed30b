/** The service side of the bridge tests: projects on a running `wrangler dev`, and its numbers against a trace's. */
import type { TraceExpected } from "./trace-types";
import { send } from "../support/send";
import { readBackMismatches } from "../support/trace-mismatches";

export { TOLERANCE } from "../support/trace-mismatches";

/**
 * A project on the server, made as docs/bridge.md step 4 makes one: created with the admin token
 * (its first token, a `manage` one, stays with the operator) and an `ingest` token issued for
 * the bridge, which is what this returns: every bridge test runs the bridge with the token the
 * docs give it.
 */
export async function createProject(base: string, adminToken: string, slug: string): Promise<string> {
  return (await createProjectTokens(base, adminToken, slug)).ingest;
}

/** Both tokens of a new project: `manage` for what its operator does (an app's settings), `ingest` for the bridge. */
export async function createProjectTokens(base: string, adminToken: string, slug: string): Promise<{ manage: string; ingest: string }> {
  const created = await send(base, "POST", "/v1/projects", adminToken, { slug, name: slug });
  const issued = await send(base, "POST", `/v1/projects/${slug}/tokens`, created.token, { scope: "ingest" });
  return { manage: created.token, ingest: issued.token };
}

/** Every number of a trace's expected output that the API reads back, from `wrangler dev` (test/support/trace-mismatches.ts). */
export function traceMismatches(
  base: string,
  slug: string,
  token: string,
  expected: TraceExpected,
  appNumbers: Map<string, number>,
): Promise<string[]> {
  return readBackMismatches((path) => send(base, "GET", `/v1/projects/${slug}${path}`, token), expected, appNumbers);
}

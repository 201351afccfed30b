/** The service side of the bridge tests: projects on a running `wrangler dev`, and its numbers against a trace's. */
import type { TraceExpected } from "./trace-types";
import { send } from "../support/send";
import { readBackMismatches } from "../support/trace-mismatches";

export { TOLERANCE } from "../support/trace-mismatches";

export async function createProject(base: string, adminToken: string, slug: string): Promise<string> {
  const created = await send(base, "POST", "/v1/projects", adminToken, { slug, name: slug });
  return created.token;
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

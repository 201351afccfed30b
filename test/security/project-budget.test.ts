/**
 * Limits cannot be multiplied: every token of a project shares the project's budget. 50 live
 * tokens (more than a project may now hold: a project that had them before the cap keeps them,
 * so they are inserted directly) each send two requests; together they get no more than the
 * project's LIMIT per window. The binding is miniflare's real one, 3 requests per 10 s.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/http/tokens";
import { createProject } from "../support/api";
import { callWith } from "./support";
import { projectIdOf } from "../support/project-id";

const LIMIT = 3;
const PERIOD_SECONDS = 10;
const TOKENS = 50;
const windowOf = (ms: number) => Math.floor(ms / 1000 / PERIOD_SECONDS);

describe("a project's budget is shared by its tokens", () => {
  it(`${TOKENS} tokens of one project together get at most the project's budget`, async () => {
    const { slug } = await createProject("budget");
    const id = await projectIdOf(slug);
    const tokens = Array.from({ length: TOKENS }, (_, i) => `cbp_budget-${slug}-${i}`);
    for (const token of tokens) {
      await env.DB.prepare("INSERT INTO project_tokens (project_id, token_hash, created_at) VALUES (?, ?, 1)")
        .bind(id, await sha256Hex(token))
        .run();
    }
    const overrides = { RATE_LIMITER: env.RATE_LIMITER_TIGHT };
    const started = Date.now();
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (const token of tokens) {
        statuses.push((await callWith(overrides, "GET", `/v1/projects/${slug}/tokens`, { token })).status);
      }
    }
    const windows = windowOf(Date.now()) - windowOf(started) + 1;
    const through = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // Within one window exactly the budget gets through; a run straddling k windows, k budgets.
    if (windows === 1) expect(through).toBe(LIMIT);
    else expect(through).toBeLessThanOrEqual(LIMIT * windows);
    console.log(
      `project budget: ${through} of ${statuses.length} requests with ${TOKENS} tokens got through; budget ${LIMIT} per window, ${windows} window(s)`,
    );
  });
});

/**
 * bridge/service/generated/api-types.ts (the bridge's and the tests' request and response types) is exactly what
 * the service's /openapi.json generates: no drift. Needs no database and no MariaDB.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { apiTypesFrom } from "../../bridge/service/api-types-source";
import { openApiDocument } from "../../scripts/openapi-document";

describe("the API's generated types", () => {
  it("bridge/service/generated/api-types.ts is what the service's /openapi.json generates (no drift)", async () => {
    const document = (await openApiDocument()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toContain("/v1/projects/{slug}/passes");
    const committed = await readFile(new URL("../../bridge/service/generated/api-types.ts", import.meta.url), "utf8");
    // If this fails, the API changed: run `npm run bridge:types` and commit bridge/service/generated/api-types.ts.
    expect(await apiTypesFrom(document)).toBe(committed);
  });
});

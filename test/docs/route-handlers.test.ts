/**
 * Every route handler has one shape (docs/development.md, "The shape of a resource"): a named
 * const typed `AppRouteHandler<typeof route>`, chained as `.openapi(route, handler)`, never a
 * closure written inline in `.openapi(…)`, where the looser type of @hono/zod-openapi applies.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { root } from "./markdown";

/** The `.openapi(route, …)` calls of `source` whose handler is a function written in place, by route. */
function inlineHandlers(file: string, source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "openapi" &&
      node.arguments.length === 2 &&
      (ts.isArrowFunction(node.arguments[1]!) || ts.isFunctionExpression(node.arguments[1]!))
    ) {
      found.push(node.arguments[0]!.getText());
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
  return found;
}

/** Every `*.index.ts` under src/routes, as paths from the root. */
function routerFiles(dir = join(root, "src/routes")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? routerFiles(join(dir, e.name)) : e.name.endsWith(".index.ts") ? [join(dir, e.name)] : [],
  );
}

describe("route handlers", () => {
  it("are named and typed by their route in every router: no closure inline in .openapi(…)", () => {
    const files = routerFiles();
    expect(files.length).toBeGreaterThan(20);
    const inline = files.flatMap((f) => inlineHandlers(f, readFileSync(f, "utf8")).map((route) => `${f.slice(root.length)}: ${route}`));
    expect(inline).toEqual([]);
  });

  it("would catch one written inline", () => {
    const source = `export const r = createRouter().openapi(aRoute, aHandler).openapi(bRoute, async (c) => c.json({}, 200));`;
    expect(inlineHandlers("x.index.ts", source)).toEqual(["bRoute"]);
  });
});

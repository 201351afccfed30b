/**
 * Copies Swagger UI from the pinned swagger-ui-dist package into public/swagger-ui/, the
 * Worker's static assets, so /docs never loads anything from a CDN. Run by wrangler's build
 * step (dev, deploy) and by vitest.config.ts; the copy is not committed.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const FILES = ["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "LICENSE", "NOTICE"];

export function copySwaggerUi() {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const source = dirname(createRequire(join(root, "package.json")).resolve("swagger-ui-dist/package.json"));
  const target = join(root, "public", "swagger-ui");
  mkdirSync(target, { recursive: true });
  for (const file of FILES) copyFileSync(join(source, file), join(target, file));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) copySwaggerUi();

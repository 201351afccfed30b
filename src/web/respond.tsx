/** What every page handler answers with: the HTML of a page, the friendly 404, parsed addresses. */
import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { AppEnv } from "../env";
import { IdParam, SlugSchema } from "../http/params";
import { xmlSafeText } from "../http/text";
import { SNAPSHOT_LIMITS } from "../snapshots/limits";
import { NotFoundPage } from "./not-found-page";

export type Ctx = Context<AppEnv>;

/** Bumped when the markup changes, so that no cache keeps an old page under a current ETag. */
export const MARKUP_VERSION = "html4";

/** A page, with any control character a stored name still holds (one stored before the input check) replaced. */
export async function html(c: Ctx, page: JSX.Element, status: 200 | 404 = 200) {
  return c.html(xmlSafeText(`<!DOCTYPE html>${await page}`), status);
}

export function notFound(c: Ctx, what: string, back?: { href: string; text: string }) {
  // Unknown ids are remembered in the Cache API for this long; a newly created one shows up after it.
  c.header("Cache-Control", `public, max-age=${SNAPSHOT_LIMITS.missCacheSeconds}`);
  return html(c, <NotFoundPage what={what} back={back} />, 404);
}

export const validSlug = (slug: string) => SlugSchema.safeParse(slug).success;
export function parseId(text: string): number | null {
  const parsed = IdParam.safeParse(text);
  return parsed.success ? parsed.data : null;
}

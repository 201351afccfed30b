/** Addresses of the pages, in one place so that every link agrees with the routes. */
import type { HolderKind } from "../snapshots/keys";

export const pageUrls = {
  home: () => "/",
  project: (slug: string, query: PageQuery = {}) => withQuery(`/p/${slug}`, query),
  holder: (slug: string, kind: HolderKind, id: number, query: PageQuery = {}) => withQuery(`/p/${slug}/${kind}/${id}`, query),
};

export type PageQuery = Readonly<Record<string, string | number | undefined>>;

/** `path?k=v&…` with the defined values, in the order given. */
function withQuery(path: string, query: PageQuery): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** The one-word name of a kind: "user" for "users". */
export const oneOf = (kind: HolderKind) => kind.slice(0, -1);

/**
 * A project's own address as a link target only when it is http(s): a `javascript:` URL
 * registered as a project's url must not become a link (JSX escapes it, but does not vet it).
 */
export function safeHref(url: string | null): string | null {
  return url !== null && /^https?:\/\//i.test(url) ? url : null;
}

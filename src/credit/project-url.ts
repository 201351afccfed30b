/**
 * A BOINC project's master URL as a key. Clients keep the URL they attached with, so the same
 * project arrives as "http://x.org/", "https://X.org" or "https://x.org/": the key drops the
 * scheme, lower-cases the host, drops a default port and ends the path with one "/". Pure.
 */

/** The key of a master URL, or null if it is not an http(s) URL without query or fragment. */
export function projectUrlKey(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  if (parsed.search !== "" || parsed.hash !== "" || parsed.username !== "" || parsed.password !== "") return null;
  if (parsed.hostname === "") return null;
  // URL drops the scheme's default port already; a non-default port stays part of the key.
  const host = parsed.port === "" ? parsed.hostname : `${parsed.hostname}:${parsed.port}`;
  const path = parsed.pathname.replace(/\/+$/, "");
  return `${host.toLowerCase()}${path}/`;
}

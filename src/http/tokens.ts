/** Bearer tokens: random, shown once, stored only as their SHA-256. */

const TOKEN_BYTES = 32;

/**
 * Prefixes: a leaked token says what it opens, and secret scanners can match it. Tokens are
 * looked up by their hash, so tokens issued before a prefix changed (project tokens were
 * `cbl_`, account-manager ones too) keep working.
 */
const TOKEN_PREFIXES = { project: "cbp", accountManager: "cbm", admin: "cba", central: "cbc" } as const;

/** A random token; the prefix says what it is for. */
function newToken(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(TOKEN_BYTES));
  let b64 = btoa(String.fromCharCode(...bytes));
  b64 = b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  return `${prefix}_${b64}`;
}

export function newProjectToken(): string {
  return newToken(TOKEN_PREFIXES.project);
}

export function newAccountManagerToken(): string {
  return newToken(TOKEN_PREFIXES.accountManager);
}

/** For the operator's ADMIN_TOKEN secret (`npm run admin-token` prints one). */
export function newAdminToken(): string {
  return newToken(TOKEN_PREFIXES.admin);
}

export function newCentralToken(): string {
  return newToken(TOKEN_PREFIXES.central);
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1]! : null;
}

/** Compares two secrets without leaking where they differ (both are hashed first). */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([sha256Hex(a), sha256Hex(b)]);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x.charCodeAt(i) ^ y.charCodeAt(i);
  return diff === 0;
}

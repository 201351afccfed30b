/**
 * A posted item's fingerprint: the first 64 bits of the SHA-256 of its content, as the signed
 * integer SQLite stores in 8 bytes (a 64-character hex string took 66). It is carried as the
 * integer's decimal text, because a JS number cannot hold 64 bits exactly; the tables write it
 * with CAST(… AS INTEGER) and read it with CAST(… AS TEXT). docs/storage.md gives the odds of
 * two contents sharing one.
 */
export async function fingerprint64(content: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(content)));
  // Big-endian, as migration 0013 reads the first 16 hex digits of the fingerprints stored before.
  return new DataView(digest).getBigInt64(0, false).toString();
}

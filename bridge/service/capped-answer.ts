/**
 * An answer's body read whole, but never more than a cap: a service (or a proxy before it) that
 * answers hundreds of megabytes would otherwise be read into one string, and a little more than
 * 300 MB crashes Node on V8's string limit (issue 48). The body is read as it streams and the
 * connection closed at the first byte over the cap.
 */

/**
 * The largest answer the bridge reads by default (--max-answer-mib): 64 MiB.
 *
 * The largest legitimate answer is POST /pass-batches' at the API's maxima (src/routes/passes:
 * 50 passes, 1,000 workunits and 5,000 results a batch), every result with its `explain` and
 * `explain.fair`, every number at JSON's longest form (24 characters, -2.2250738585072014e-308)
 * and the longest enum strings: 713 bytes a result, 114 a workunit, 48 a pass, 13 the braces,
 * so 5,000 × 713 + 1,000 × 114 + 50 × 48 + 13 = 3,681,413 bytes (3.5 MiB). 64 MiB is 18 times
 * that. The one answer without a bound in the API is GET /app-versions (every version of the
 * project): 499 bytes a version named as BOINC names them (every number 17 digits), so 64 MiB
 * holds 134,000 versions; 2,834 bytes with app, platform and plan class each 254 three-byte
 * characters, 23,000 versions. Reading 64 MiB costs a few hundred MB of memory at most, far
 * below the string limit.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** The answer's body was over the cap; what of it came was dropped. */
export class AnswerTooLarge extends Error {
  override name = "AnswerTooLarge";
}

/** Bytes as a person reads them: "1000 bytes", "64 MiB", "1.5 MiB". */
export function sizeText(bytes: number): string {
  return bytes < 1024 * 1024 ? `${bytes} bytes` : `${Math.round((bytes / (1024 * 1024)) * 100) / 100} MiB`;
}

/** Statuses whose answer has no body (a Response with one cannot be built). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `response` with its body read into memory (so a timeout covers the whole answer), at most
 * `maxBytes` of it; over that, AnswerTooLarge and the connection is closed unread.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<Response> {
  if (response.body === null || NO_BODY.has(response.status)) return response;
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    void response.body.cancel().catch(() => undefined);
    throw new AnswerTooLarge(`an answer of ${sizeText(declared)}, over the ${sizeText(maxBytes)} the bridge reads`);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel().catch(() => undefined);
      throw new AnswerTooLarge(`an answer over the ${sizeText(maxBytes)} the bridge reads`);
    }
    chunks.push(value);
  }
  // fetch has already decoded any gzip: the copy says what it holds.
  const headers = new Headers(response.headers);
  headers.delete("content-encoding");
  headers.delete("transfer-encoding");
  headers.set("content-length", String(size));
  return new Response(Buffer.concat(chunks), { status: response.status, statusText: response.statusText, headers });
}

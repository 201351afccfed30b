/**
 * A stand-in service for the bridge's trust tests: a small HTTP server in front of the real
 * service (`wrangler dev`) that forwards every request, and answers the requests a test picks as
 * a faulty, misdeployed or compromised service would: it rewrites the service's JSON answer,
 * never answers, answers a body of any size or an error status, or holds a request until let go. The bridge is run against it unchanged, and
 * BOINC's database is read afterwards.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from "node:http";
import type { Socket } from "node:net";

/** What the stand-in does with one request it matched, instead of passing the answer through. */
export type Fault =
  /** The service's JSON answer, changed by `rewrite` (return the new body). */
  | { kind: "rewrite"; rewrite: (body: unknown, requestBody: unknown) => unknown }
  /** Reads the request and never answers (the connection stays open). */
  | { kind: "hang" }
  /** Answers 200 with a JSON body of about `bytes` bytes, written in chunks (the request is not forwarded). */
  | { kind: "huge"; bytes: number }
  /** Answers `status` with the API's error shape (code `internal` for a 5xx, as the service's own 500) without forwarding. */
  | { kind: "status"; status: number; code?: string }
  /** Holds the request until `until` resolves, then forwards it as any other (a slow service the test lets go). */
  | { kind: "hold"; until: Promise<void> };

export interface FaultRule {
  /** Matched against "METHOD /path" (e.g. /^POST .*\/pass-batches$/). */
  match: RegExp;
  fault: Fault;
  /** How many matching requests get the fault (default: all). */
  times?: number;
}

function resultIds(body: Buffer): number[] {
  const batch = JSON.parse(body.toString("utf8")) as { passes: { workunits: { results: { id: number }[] }[] }[] };
  return batch.passes.flatMap((p) => p.workunits.flatMap((w) => w.results.map((r) => r.id)));
}

function withoutEncoding(headers: IncomingMessage["headers"]): IncomingMessage["headers"] {
  const { "accept-encoding": _encoding, ...rest } = headers;
  return rest;
}

export class StandInService {
  readonly rules: FaultRule[] = [];
  /** Requests seen, as "METHOD /path", and how many got a fault. */
  readonly seen: string[] = [];
  /** The result ids of each pass batch posted (POST …/pass-batches), in order. */
  readonly passResults: number[][] = [];
  faulted = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
    readonly base: string,
  ) {}

  static async start(target: string): Promise<StandInService> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const service = new StandInService(server, new URL(target), `http://127.0.0.1:${port}`);
    server.on("request", (req, res) => void service.handle(req, res));
    server.on("connection", (s: Socket) => {
      service.sockets.add(s);
      s.on("close", () => service.sockets.delete(s));
    });
    return service;
  }

  /** Adds a fault for the requests `match` picks (rules are tried in order). */
  fault(match: RegExp, fault: Fault, times?: number): this {
    this.rules.push({ match, fault, times });
    return this;
  }

  /** Passes everything through again. */
  clear(): void {
    this.rules.length = 0;
  }

  private pick(line: string): Fault | null {
    for (const rule of this.rules) {
      if (!rule.match.test(line)) continue;
      if (rule.times !== undefined) {
        if (rule.times <= 0) continue;
        rule.times--;
      }
      return rule.fault;
    }
    return null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const line = `${req.method} ${req.url}`;
    this.seen.push(line);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    if (/^POST .*\/pass-batches$/.test(line)) this.passResults.push(resultIds(body));
    const picked = this.pick(line);
    if (picked) this.faulted++;
    if (picked?.kind === "hold") await picked.until;
    // Let go, a held request is forwarded as any other.
    const fault = picked?.kind === "hold" ? null : picked;
    if (fault?.kind === "hang") return;
    if (fault?.kind === "status") {
      const code = fault.code ?? (fault.status >= 500 ? "internal" : "bad_request");
      const out = JSON.stringify({ error: { code, message: `the stand-in answered ${fault.status}` } });
      res.writeHead(fault.status, { "content-type": "application/json", "content-length": Buffer.byteLength(out) });
      res.end(out);
      return;
    }
    if (fault?.kind === "huge") {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1 << 20, " ");
      res.write('{"passes":[');
      for (let sent = 0; sent < fault.bytes; sent += chunk.length) {
        if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
        if (res.destroyed) return;
      }
      res.end("]}");
      return;
    }
    const upstream = request({
      host: this.target.hostname,
      port: this.target.port,
      method: req.method,
      path: req.url,
      // Uncompressed, so that a rewrite can read the service's answer.
      headers: { ...withoutEncoding(req.headers), host: this.target.host, "content-length": String(body.length) },
    });
    upstream.on("error", () => res.destroy());
    upstream.on("response", (answer) => {
      if (!fault) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const parts: Buffer[] = [];
      answer.on("data", (d: Buffer) => parts.push(d));
      answer.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        const requestJson = body.length > 0 ? (JSON.parse(body.toString("utf8")) as unknown) : null;
        const out = JSON.stringify(fault.rewrite(JSON.parse(text), requestJson));
        res.writeHead(answer.statusCode ?? 200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) });
        res.end(out);
      });
    });
    upstream.end(body);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

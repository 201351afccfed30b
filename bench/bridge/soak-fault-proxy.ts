/**
 * A small HTTP proxy in front of `wrangler dev` for the soak: the bridge talks to the service
 * through it, and the soak switches what it does:
 * - `pass`: forwards every request and its answer;
 * - `503`: answers 503 with Retry-After (the service's "try again") without forwarding;
 * - `500`: forwards the request, then answers 500 instead of the service's answer (the service
 *   did the work: the bridge must post it again and get it answered as replayed);
 * - `drop`: closes the connection, every other request before forwarding it, the others after
 *   the service answered (the answer lost on the way back).
 * It also counts the validated results in the pass batches it forwards (what the service got,
 * re-posts included): the soak's posts per validated result.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from "node:http";
import type { Socket } from "node:net";

export type ProxyMode = "pass" | "503" | "500" | "drop";

export interface ProxyCounts {
  forwarded: number;
  answered503: number;
  answered500: number;
  droppedBefore: number;
  droppedAfter: number;
  /** Results in the pass batches forwarded to the service, and how many distinct results they were. */
  passResults: number;
  distinctPassResults: number;
}

/** The request's results, when it is a pass batch (POST …/pass-batches). */
function passResultIds(req: IncomingMessage, body: string): number[] {
  if (req.method !== "POST" || !req.url?.endsWith("/pass-batches")) return [];
  try {
    const batch = JSON.parse(body) as { passes: { workunits: { results: { id: number }[] }[] }[] };
    return batch.passes.flatMap((p) => p.workunits.flatMap((w) => w.results.map((r) => r.id)));
  } catch {
    return [];
  }
}

export class FaultProxy {
  mode: ProxyMode = "pass";
  readonly counts: ProxyCounts = {
    forwarded: 0,
    answered503: 0,
    answered500: 0,
    droppedBefore: 0,
    droppedAfter: 0,
    passResults: 0,
    distinctPassResults: 0,
  };
  private readonly resultIds = new Set<number>();
  private drops = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
    readonly base: string,
  ) {}

  static async start(target: string): Promise<FaultProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const proxy = new FaultProxy(server, new URL(target), `http://127.0.0.1:${port}`);
    server.on("request", (req, res) => proxy.handle(req, res));
    server.on("connection", (s: Socket) => {
      proxy.sockets.add(s);
      s.on("close", () => proxy.sockets.delete(s));
    });
    return proxy;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const mode = this.mode;
    if (mode === "503") {
      req.resume();
      this.counts.answered503++;
      res.writeHead(503, { "content-type": "application/json", "retry-after": "2" });
      res.end(JSON.stringify({ error: { code: "unavailable", message: "soak: the service is unavailable" } }));
      return;
    }
    const dropAfter = mode === "drop" && this.drops++ % 2 === 1;
    if (mode === "drop" && !dropAfter) {
      this.counts.droppedBefore++;
      req.socket.destroy();
      return;
    }
    this.counts.forwarded++;
    const body: Buffer[] = [];
    req.on("data", (d: Buffer) => body.push(d));
    req.on("end", () => this.countResults(passResultIds(req, Buffer.concat(body).toString())));
    const upstream = request(
      {
        host: this.target.hostname,
        port: this.target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: this.target.host },
      },
      (answer) => {
        if (mode === "pass") {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        answer.resume();
        answer.on("end", () => {
          if (dropAfter) {
            this.counts.droppedAfter++;
            req.socket.destroy();
            return;
          }
          this.counts.answered500++;
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { code: "internal", message: "soak: an internal error" } }));
        });
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  }

  private countResults(ids: number[]): void {
    this.counts.passResults += ids.length;
    for (const id of ids) this.resultIds.add(id);
    this.counts.distinctPassResults = this.resultIds.size;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}

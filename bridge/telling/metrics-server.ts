/** --metrics-port: GET /metrics answers the run's status in Prometheus' text format (node:http, no dependency). */
import { type Server, createServer } from "node:http";
import { BridgeError } from "../shared/errors";
import { METRICS_CONTENT_TYPE } from "./metrics";

export interface MetricsServer {
  /** The port it listens on. */
  port: number;
  close(): Promise<void>;
}

export async function serveMetrics(host: string, port: number, render: () => string): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://bridge").pathname;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain" }).end("GET /metrics\n");
    } else if (path === "/metrics") {
      const body = render();
      res.writeHead(200, { "Content-Type": METRICS_CONTENT_TYPE, "Content-Length": Buffer.byteLength(body) });
      res.end(req.method === "HEAD" ? undefined : body);
    } else {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("the bridge's metrics are at /metrics\n");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => {
      const why =
        e.code === "EADDRINUSE"
          ? "the port is in use (another bridge? give each its own --metrics-port)"
          : e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND"
            ? "this machine has no such address (--metrics-host)"
            : e.code === "EACCES"
              ? "not allowed to listen there (ports below 1024 need privileges)"
              : e.message;
      reject(new BridgeError(`--metrics-port: cannot listen on ${host}:${port}: ${why}`));
    });
    server.listen(port, host, () => resolve());
  });
  // A scrape in progress does not keep the process alive at its end.
  server.unref();
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

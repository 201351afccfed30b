/**
 * `npx tsx bench/profile-worker.ts`: a CPU profile of the Worker's isolate under ingest, taken
 * through wrangler dev's inspector (Chrome DevTools protocol), summarised by function, and the
 * isolate's heap after it (workerd's own memory also holds the local D1 and KV). Writes
 * bench/results/worker.cpuprofile (open it in Chrome DevTools) and prints the top functions.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { drive, postJson } from "./client";
import { ADMIN_TOKEN, freshStateDir, prepareState, startServer } from "./server";
import { APPS, passes, versions } from "./workload";

const root = new URL("..", import.meta.url).pathname;
const INSPECTOR = 9235;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** The DevTools protocol's answers this script reads. */
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
interface Answers {
  "Profiler.stop": { profile: CpuProfile };
  "Runtime.getHeapUsage": { usedSize: number; totalSize: number };
}
/** A target of the inspector's /json list. */
interface InspectorTarget {
  title?: string;
  webSocketDebuggerUrl: string;
}
type Send = <M extends string>(method: M, params?: object) => Promise<M extends keyof Answers ? Answers[M] : unknown>;

async function inspector(): Promise<Send> {
  const targets = (await (await fetch(`http://127.0.0.1:${INSPECTOR}/json`)).json()) as InspectorTarget[];
  const target = targets.find((t) => !String(t.title ?? "").includes("ProxyWorker")) ?? targets[0]!;
  // wrangler's inspector proxy only lets DevTools' own origin connect.
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: "https://devtools.devprod.cloudflare.dev" } } as never);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve);
    ws.addEventListener("error", reject);
  });
  let id = 0;
  const pending = new Map<number, (v: unknown) => void>();
  ws.addEventListener("message", (m) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  });
  return (method, params = {}) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      // The protocol answers `method` with its documented result (Answers).
      pending.set(n, resolve as (v: unknown) => void);
      ws.send(JSON.stringify({ id: n, method, params }));
      setTimeout(() => reject(new Error(`the inspector did not answer ${method}`)), 30_000).unref();
    });
}

const state = freshStateDir();
prepareState(state);
const server = await startServer(8795, state, ["--inspector-port", String(INSPECTOR)]);
try {
  const url = server.url;
  const { token } = await postJson(url, `/v1/projects`, ADMIN_TOKEN, { slug: "bench", name: "B" });
  for (const a of APPS) await postJson(url, `/v1/projects/bench/apps/${a.name}`, token, {}, "PUT");
  for (const v of versions()) {
    const { flops: _f, id, ...body } = v;
    await postJson(url, `/v1/projects/bench/app-versions/${id}`, token, body, "PUT");
  }
  const now = Math.floor(Date.now() / 1000) - 60;
  await drive(passes(Array(100).fill(100), { seed: 1, firstWu: 1, now }), 8, (b) => postJson(url, `/v1/projects/bench/passes`, token, b));
  const send = await inspector();
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 });
  await send("Profiler.start");
  const stats = await drive(passes(Array(100).fill(100), { seed: 2, firstWu: 1e6, now }), 8, (b) =>
    postJson(url, `/v1/projects/bench/passes`, token, b),
  );
  const { profile } = await send("Profiler.stop");
  const heap = await send("Runtime.getHeapUsage");
  mkdirSync(join(root, "bench/results"), { recursive: true });
  writeFileSync(join(root, "bench/results/worker.cpuprofile"), JSON.stringify(profile));
  const nodes = new Map<number, ProfileNode>(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const f = nodes.get(id)!.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`100 passes of 100 workunits: ${Math.round((100 * 200) / stats.seconds)} results/s while profiled`);
  console.log(
    `the isolate's JS heap after them: ${(heap.usedSize / 2 ** 20).toFixed(1)} MiB used of ${(heap.totalSize / 2 ** 20).toFixed(1)} MiB; ` +
      `workerd's peak resident memory: ${server.peakMemoryMiB().toFixed(0)} MiB`,
  );
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${(v / 1000).toFixed(0).padStart(7)} ms ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
} finally {
  await server.stop();
}

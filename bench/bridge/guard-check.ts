/**
 * `npx tsx bench/bridge/guard-check.ts`: what the one-run guard's check costs (run-guard.ts
 * ensureHeld: `IS_USED_LOCK(name) = CONNECTION_ID()` on the guard's connection), made before
 * every poll, every request that changes the service and every write-back commit. Against a
 * MariaDB on this machine over TCP (127.0.0.1): BRIDGE_GUARD_CHECKS (default 2000) checks one
 * after another. Not a test: the figure depends on the machine's load (BENCHMARKS.md).
 */
import { loadavg } from "node:os";
import { RunGuard } from "../../bridge/running/run-guard";
import { createBoincDb } from "../../test/bridge/boinc-fixture";
import { MARIADB_MISSING, mariadbAvailable, startMariaDb } from "../../test/bridge/mariadb";

const CHECKS = Number(process.env.BRIDGE_GUARD_CHECKS ?? 2000);

if (!mariadbAvailable()) {
  console.error(MARIADB_MISSING);
  process.exit(1);
}
const maria = await startMariaDb();
try {
  const dsn = await createBoincDb(maria, "guard_bench");
  const guard = await RunGuard.take(dsn, "guard_bench", "bench", { heartbeatMs: 0 });
  // A few to warm the connection up.
  for (let i = 0; i < 50; i++) await guard.ensureHeld();
  const load = loadavg()[0]!;
  const ms: number[] = [];
  for (let i = 0; i < CHECKS; i++) {
    const t = performance.now();
    await guard.ensureHeld();
    ms.push(performance.now() - t);
  }
  await guard.release();
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
  const mean = ms.reduce((s, x) => s + x, 0) / ms.length;
  console.log(
    `${CHECKS} guard checks: mean ${mean.toFixed(3)} ms, median ${at(0.5).toFixed(3)} ms, p95 ${at(0.95).toFixed(3)} ms, max ${ms.at(-1)!.toFixed(3)} ms; load average ${load.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
  );
} finally {
  await maria.stop();
}

/**
 * The soak's faults and their schedule. A run is cut into cycles of about 10 minutes (a shorter
 * run is one shorter cycle), and every cycle holds each fault, in this order, at the same
 * fractions of it:
 * - a lock wait timeout: a transaction holds every host row FOR UPDATE for four times the lowered
 *   innodb_lock_wait_timeout, so the write-back's transactions time out and are retried (first,
 *   while the bridge writes every poll: after an outage it may sit in a back-off and meet no lock);
 * - MariaDB restarted: stopped (SIGTERM), down a few seconds, started on the same datadir, then
 *   the longest quiet stretch (the bridge reconnects, and must hold its guard again: soak-guard-watch.ts);
 * - the service failing: 503 with Retry-After for the first half, 500 for the second (a minute
 *   in all in a cycle of 5 minutes or more);
 * - the bridge SIGKILLed, restarted by the supervisor;
 * - the service unreachable: connections dropped (a minute in all from 5-minute cycles);
 * - the bridge SIGKILLed again near the cycle's end.
 */
import type mysql from "mysql2/promise";
import type { FaultProxy } from "./soak-fault-proxy";
import type { BridgeSupervisor } from "./soak-supervisor";

export const FAULT_KINDS = ["lock-wait", "mariadb-restart", "service-5xx", "bridge-sigkill", "service-unreachable"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface PlannedFault {
  kind: FaultKind;
  /** Seconds from the start. */
  at: number;
  durationS: number;
}

export interface FaultRun {
  kind: FaultKind;
  startedAt: number;
  endedAt: number;
  note: string;
}

/** MariaDB's innodb_lock_wait_timeout for the soak (its default is 50 s). */
export const LOCK_WAIT_TIMEOUT_S = 3;
const CYCLE_S = 600;

/** `only`: the kinds to inject (all by default). */
export function faultSchedule(minutes: number, only: FaultKind[] | null = null): PlannedFault[] {
  const total = minutes * 60;
  const cycles = Math.max(1, Math.round(total / CYCLE_S));
  const c = total / cycles;
  const outage = Math.min(60, 0.2 * c);
  const plan: PlannedFault[] = [];
  for (let k = 0; k < cycles; k++) {
    const at = (f: number) => Math.round(k * c + f * c);
    plan.push(
      { kind: "lock-wait", at: at(0.05), durationS: 4 * LOCK_WAIT_TIMEOUT_S },
      { kind: "mariadb-restart", at: at(0.1), durationS: Math.min(10, 0.03 * c) },
      { kind: "service-5xx", at: at(0.3), durationS: outage },
      { kind: "bridge-sigkill", at: at(0.55), durationS: 0 },
      { kind: "service-unreachable", at: at(0.62), durationS: outage },
      { kind: "bridge-sigkill", at: at(0.92), durationS: 0 },
    );
  }
  return only ? plan.filter((f) => only.includes(f.kind)) : plan;
}

export interface FaultTargets {
  restartMariaDb(downMs: number): Promise<void>;
  proxy: FaultProxy;
  bridge: BridgeSupervisor;
  /** A root connection to the soak's database. */
  root(): Promise<mysql.Connection>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Injects one fault and returns when it is over. */
export async function inject(fault: PlannedFault, targets: FaultTargets): Promise<FaultRun> {
  const startedAt = Date.now();
  const ms = fault.durationS * 1000;
  let note: string;
  switch (fault.kind) {
    case "mariadb-restart":
      await targets.restartMariaDb(ms);
      note = `mariadbd stopped (SIGTERM) and started again on the same datadir after ${fault.durationS.toFixed(0)} s down`;
      break;
    case "service-5xx":
      targets.proxy.mode = "503";
      await sleep(ms / 2);
      targets.proxy.mode = "500";
      await sleep(ms / 2);
      targets.proxy.mode = "pass";
      note = `the service answered 503 (Retry-After 2) for ${(ms / 2000).toFixed(0)} s, then 500 for ${(ms / 2000).toFixed(0)} s`;
      break;
    case "service-unreachable":
      targets.proxy.mode = "drop";
      await sleep(ms);
      targets.proxy.mode = "pass";
      note = `connections dropped for ${fault.durationS.toFixed(0)} s (every other one after the service had answered)`;
      break;
    case "bridge-sigkill": {
      const pid = targets.bridge.current?.pid;
      note = targets.bridge.kill("SIGKILL") ? `bridge pid ${pid} SIGKILLed` : "no bridge running to kill (it was between restarts)";
      break;
    }
    case "lock-wait": {
      const conn = await targets.root();
      try {
        // The holder waits as long as it must for its own locks; the bridge's wait is the lowered global one.
        await conn.query("SET SESSION innodb_lock_wait_timeout = 120");
        await conn.query("START TRANSACTION");
        const [rows] = await conn.query("SELECT id FROM host ORDER BY id FOR UPDATE");
        const locked = Date.now();
        await sleep(ms);
        await conn.query("ROLLBACK");
        note = `${(rows as unknown[]).length} host rows held FOR UPDATE for ${((Date.now() - locked) / 1000).toFixed(0)} s (innodb_lock_wait_timeout ${LOCK_WAIT_TIMEOUT_S} s)`;
      } finally {
        await conn.end().catch(() => undefined);
      }
      break;
    }
  }
  return { kind: fault.kind, startedAt, endedAt: Date.now(), note };
}

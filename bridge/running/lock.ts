/**
 * One bridge run per state file on this machine: a lock file beside it (`FILE.lock`, holding
 * the run's pid), created exclusively. A second run on the same state exits with one line (exit
 * 76); a lock left by a run that died is taken over. The run-wide guard is the database lock
 * (run-guard.ts); this one only keeps two runs off one file, and trusts no bare pid: a pid
 * number is used again (pid_max can be 32,768) and `kill(pid, 0)` answers for threads too, so
 * a lock is held only while a process of that pid exists that started before the lock was
 * written (Linux's /proc tells when; elsewhere the pid's existence is all there is).
 */
import { mkdir, open, readFile, stat, unlink } from "node:fs/promises";
import { uptime } from "node:os";
import { dirname } from "node:path";
import { BridgeError } from "../shared/errors";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, owned by someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Linux's USER_HZ, the unit of /proc/PID/stat's start time (100 on every Linux architecture Node runs on). */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * When this machine booted (Unix seconds): /proc/stat's btime, else now less the uptime (the
 * shipped systemd units' ProcSubset=pid leaves /proc only the processes; the uptime then comes
 * from the kernel's clock instead of /proc/uptime).
 */
async function bootTime(): Promise<number> {
  const btime = Number(/^btime (\d+)$/m.exec(await readFile("/proc/stat", "utf8").catch(() => ""))?.[1]);
  return Number.isFinite(btime) ? btime : Math.floor(Date.now() / 1000 - uptime());
}

/** When process `pid` started (Unix ms), from /proc; null where /proc cannot tell. */
export async function processStartMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses); start time is field 22.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[22 - 3]);
    const btime = await bootTime();
    if (!Number.isFinite(ticks) || !Number.isFinite(btime)) return null;
    return btime * 1000 + (ticks / CLOCK_TICKS_PER_SECOND) * 1000;
  } catch {
    return null;
  }
}

/** Whether the lock at `path`, naming `pid`, belongs to a live run: that pid exists and started before the lock was written. */
async function held(path: string, pid: number): Promise<boolean> {
  if (!alive(pid)) return false;
  const started = await processStartMs(pid);
  if (started === null) return true;
  const written = await stat(path).then(
    (s) => s.mtimeMs,
    () => null,
  );
  // A second of slack for the boot time's rounding: a run writes its lock long after it starts.
  return written === null || started <= written + 1000;
}

export interface StateLock {
  release(): Promise<void>;
}

export async function lockState(stateFile: string): Promise<StateLock> {
  const path = `${stateFile}.lock`;
  // The default state directory (~/.local/state/cobblestone) may not exist yet.
  await mkdir(dirname(stateFile), { recursive: true });
  for (let tries = 0; tries < 2; tries++) {
    try {
      const handle = await open(path, "wx");
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return { release: () => unlink(path).catch(() => undefined) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new BridgeError(`cannot create the lock ${path}: ${(e as Error).message}`);
    }
    const pid = Number((await readFile(path, "utf8").catch(() => "")).trim());
    if (Number.isInteger(pid) && pid > 0 && (await held(path, pid))) {
      throw new BridgeError(
        `another bridge run (pid ${pid}) is using ${stateFile}; this one exits (a run every minute overlaps a long one: that is fine)`,
        { kind: "locked" },
      );
    }
    // Its run died without removing it (or its pid now names a later process).
    await unlink(path).catch(() => undefined);
  }
  throw new BridgeError(`cannot take the lock ${path}: another run keeps creating it`, { kind: "locked" });
}

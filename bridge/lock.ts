/**
 * One bridge run per state file: a lock file beside it (`FILE.lock`, holding the run's pid),
 * created exclusively. A second run on the same state exits with one line; a lock left by a
 * run that died (its pid gone) is taken over.
 */
import { mkdir, open, readFile, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { BridgeError } from "./errors";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, owned by someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
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
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      throw new BridgeError(
        `another bridge run (pid ${pid}) is using ${stateFile}; this one exits (a run every minute overlaps a long one: that is fine)`,
      );
    }
    // Its run died without removing it.
    await unlink(path).catch(() => undefined);
  }
  throw new BridgeError(`cannot take the lock ${path}: another run keeps creating it`);
}

/**
 * --metrics-file: the run's status for node_exporter's textfile collector, written atomically
 * (a temp file renamed over it, so the collector never reads half a file) after every round,
 * every 15 s while a long round runs, and once more at the end with how the process ended. The
 * file is also the bridge's memory for its monitor: the next process reads back what the last
 * one left (previousStatus) before it writes over it.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { BridgeError } from "../shared/errors";
import { carriedStatus } from "./metrics";
import type { CarriedStatus } from "./status";

const EVERY_MS = 15_000;

export class MetricsFile {
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private again = false;

  constructor(
    readonly path: string,
    private readonly render: () => string,
    /** A write that failed after the first (the run goes on). */
    private readonly failed: (message: string) => void,
  ) {}

  /** The first write, which must succeed (a wrong path is told at once, exit 2); then every 15 s. */
  async start(): Promise<void> {
    try {
      await this.writeNow();
    } catch (e) {
      throw new BridgeError(`--metrics-file: cannot write ${this.path}: ${(e as Error).message}`);
    }
    this.timer = setInterval(() => this.write(), EVERY_MS);
    this.timer.unref();
  }

  /** Writes the status as of now; a write asked for while one runs follows it. */
  write(): void {
    if (this.again) return;
    this.again = true;
    this.writing = this.writing.then(async () => {
      this.again = false;
      await this.writeNow().catch((e: Error) => this.failed(`--metrics-file: cannot write ${this.path}: ${e.message}`));
    });
  }

  /** Stops the timer and writes the last status. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.write();
    await this.writing;
  }

  private async writeNow(): Promise<void> {
    // Per process, in the same directory (a rename does not cross file systems); not *.prom, so the collector skips it.
    const temp = `${this.path}.${process.pid}.tmp`;
    await writeFile(temp, this.render());
    await rename(temp, this.path);
  }
}

/** What the last process of `project` left in the file at `path`; null when there is no file, or none of the project's. */
export async function previousStatus(path: string, project: string): Promise<CarriedStatus | null> {
  const text = await readFile(path, "utf8").catch(() => null);
  return text === null ? null : carriedStatus(text, project);
}

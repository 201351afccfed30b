/**
 * The run's write-back (--write-back): its connection, opened again after the database was away
 * (--follow), counting on in the same report, checks and sweep across reopenings.
 */
import { type Grant, WriteBack, type WriteBackOptions, type WriteBackReport } from "./write-back";

export class WriteBackLink {
  private current: WriteBack | null = null;
  /** Its connection is to be opened again before the next write (the database was away, and a reopening failed or is due). */
  private stale = false;

  constructor(
    private readonly dsn: string,
    private readonly options: WriteBackOptions,
  ) {}

  /** Open (or failed to open: a failed reopening keeps the closed one, as the next reopening replaces it). */
  get writeBack(): WriteBack | null {
    return this.current;
  }

  /** Null until the first opening. */
  get report(): WriteBackReport | null {
    return this.current?.report ?? null;
  }

  async open(): Promise<void> {
    this.current = await WriteBack.open(this.dsn, this.options, this.current ?? undefined);
  }

  /** After the database was away: the connection is opened again now, or (if that fails) before the next poll (`ensureOpen`). */
  async reopen(): Promise<void> {
    this.stale = true;
    await this.current?.close();
    await this.open();
    this.stale = false;
  }

  /** Marks the connection for reopening, whatever happens to the rest of a reconnection. */
  markStale(): void {
    this.stale = true;
  }

  /** Before a poll: a reopening that failed while the database was still away is done now, not found out by the next write. */
  async ensureOpen(): Promise<void> {
    if (this.stale) await this.reopen();
  }

  /** Writes one answered request's grants; how many results this write wrote. */
  async write(grants: Grant[]): Promise<number> {
    const wb = this.current;
    if (!wb) throw new Error("the write-back is not open");
    const before = wb.report.written;
    await wb.write(grants);
    return wb.report.written - before;
  }

  async close(): Promise<void> {
    await this.current?.close();
  }
}

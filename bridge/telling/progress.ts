/** A progress line on stderr for backfills: done/total, rate and ETA; redrawn in place on a terminal. */
export class Progress {
  private done = 0;
  private lastDraw = 0;
  private readonly started = Date.now();

  constructor(
    /** Results to post; 0 until counted (the count may arrive after the first results). */
    public total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly enabled = true,
  ) {}

  add(n: number): void {
    this.done += n;
    const now = Date.now();
    // A terminal is redrawn 5 times a second; a log file gets a line every 10 s.
    if (this.enabled && now - this.lastDraw >= (this.out.isTTY ? 200 : 10_000)) this.draw(now);
  }

  finish(): void {
    if (this.enabled) this.draw(Date.now(), true);
  }

  /** Results per second so far. */
  rate(now = Date.now()): number {
    return this.done / Math.max(0.001, (now - this.started) / 1000);
  }

  private draw(now: number, last = false): void {
    this.lastDraw = now;
    const rate = this.rate(now);
    const share = this.total > 0 ? Math.min(1, this.done / this.total) : this.done > 0 ? 0 : 1;
    const width = 30;
    const bar = "#".repeat(Math.round(share * width)).padEnd(width, ".");
    const eta = rate > 0 && this.total > 0 ? formatDuration((this.total - this.done) / rate) : "?";
    const line = `[${bar}] ${(share * 100).toFixed(1)}% ${this.done.toLocaleString("en")}/${this.total.toLocaleString("en")} results, ${Math.round(rate).toLocaleString("en")}/s, ETA ${eta}`;
    this.out.write(this.out.isTTY ? `\r${line}${last ? "\n" : ""}` : `${line}\n`);
  }
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/**
 * --compare: BOINC's granted_credit against Cobblestone's, per result posted in this run.
 * Rows stream to the CSV as they come; the summary keeps per-app sums and the largest
 * differences only, so memory stays flat.
 */
import { createWriteStream, type WriteStream } from "node:fs";

/** Two credits agree when they differ by at most this, relative (the traces' tolerance). */
export const AGREEMENT_TOLERANCE = 1e-9;
const LARGEST_KEPT = 10;

export interface Difference {
  result_id: number;
  workunit_id: number;
  app: string;
  boinc: number;
  cobblestone: number;
  difference: number;
}

interface AppTally {
  results: number;
  agreeing: number;
  ratioSum: number;
  ratioCount: number;
}

export interface CompareSummary {
  results: number;
  agreeing: number;
  /** Mean of cobblestone / boinc over results BOINC granted credit to. */
  mean_ratio: number | null;
  largest: Difference[];
  apps: { app: string; results: number; agreeing: number; mean_ratio: number | null }[];
}

export function relativeDifference(a: number, b: number): number {
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return scale === 0 ? 0 : Math.abs(a - b) / scale;
}

const csvField = (v: string | number) => (typeof v === "number" ? String(v) : /[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

export class CreditComparison {
  private readonly total: AppTally = { results: 0, agreeing: 0, ratioSum: 0, ratioCount: 0 };
  private readonly perApp = new Map<string, AppTally>();
  private largest: Difference[] = [];
  private readonly csv: WriteStream;

  constructor(csvPath: string) {
    this.csv = createWriteStream(csvPath);
    this.csv.write("result_id,workunit_id,app,boinc_granted_credit,cobblestone_granted_credit,ratio,difference\n");
  }

  add(d: Omit<Difference, "difference">): void {
    const difference = d.cobblestone - d.boinc;
    const ratio = d.boinc > 0 ? d.cobblestone / d.boinc : null;
    const agrees = relativeDifference(d.boinc, d.cobblestone) <= AGREEMENT_TOLERANCE;
    let app = this.perApp.get(d.app);
    if (!app) this.perApp.set(d.app, (app = { results: 0, agreeing: 0, ratioSum: 0, ratioCount: 0 }));
    for (const t of [this.total, app]) {
      t.results++;
      if (agrees) t.agreeing++;
      if (ratio !== null) {
        t.ratioSum += ratio;
        t.ratioCount++;
      }
    }
    this.csv.write([d.result_id, d.workunit_id, d.app, d.boinc, d.cobblestone, ratio ?? "", difference].map(csvField).join(",") + "\n");
    if (!agrees) this.keepLargest({ ...d, difference });
  }

  private keepLargest(d: Difference): void {
    if (this.largest.length === LARGEST_KEPT && Math.abs(d.difference) <= Math.abs(this.largest.at(-1)!.difference)) return;
    this.largest.push(d);
    this.largest.sort((a, b) => Math.abs(b.difference) - Math.abs(a.difference));
    this.largest.length = Math.min(this.largest.length, LARGEST_KEPT);
  }

  async close(): Promise<CompareSummary> {
    await new Promise<void>((resolve, reject) => this.csv.end((e?: Error | null) => (e ? reject(e) : resolve())));
    const mean = (t: AppTally) => (t.ratioCount > 0 ? t.ratioSum / t.ratioCount : null);
    return {
      results: this.total.results,
      agreeing: this.total.agreeing,
      mean_ratio: mean(this.total),
      largest: this.largest,
      apps: [...this.perApp]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([app, t]) => ({ app, results: t.results, agreeing: t.agreeing, mean_ratio: mean(t) })),
    };
  }
}

const percent = (part: number, whole: number) => (whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(2)}%`);
const ratioText = (r: number | null) => (r === null ? "n/a" : r.toFixed(6));

export function summaryText(s: CompareSummary): string {
  const lines = [
    `compared ${s.results} results: ${s.agreeing} agree to ${AGREEMENT_TOLERANCE} relative (${percent(s.agreeing, s.results)}), mean ratio Cobblestone/BOINC ${ratioText(s.mean_ratio)}`,
    ...s.apps.map(
      (a) => `  app ${a.app}: ${a.results} results, ${percent(a.agreeing, a.results)} agree, mean ratio ${ratioText(a.mean_ratio)}`,
    ),
  ];
  if (s.largest.length > 0) {
    lines.push("largest differences (result id, app, BOINC, Cobblestone):");
    for (const d of s.largest) lines.push(`  ${d.result_id} ${d.app} ${d.boinc} ${d.cobblestone}`);
  }
  return lines.join("\n");
}

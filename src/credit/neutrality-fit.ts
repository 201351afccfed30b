/**
 * The project-neutrality index of one resource class (docs/central-registry.md): over hosts
 * (by host_cpid) attached to several projects, ln(credit per device-hour) = host effect +
 * project effect, fitted by median polish on the host × project table (cells may be missing),
 * the project effects centred on the median project. A bootstrap over hosts gives each index
 * its 90% interval; pairwise ratios are the median, over shared hosts, of the per-host ratio.
 * Pure: the central job gathers the cells and publishes what this returns.
 */
import { NEUTRALITY } from "./parameters";
import { seededRandom } from "./seeded-random";

/** One host's window in one project, for one resource class. */
export interface NeutralCell {
  readonly host: string;
  readonly project: string;
  readonly credit: number;
  readonly deviceSeconds: number;
  readonly results: number;
}

export type NeutralStatus = "fitted" | "insufficient overlap";

export interface ProjectIndex {
  readonly project: string;
  readonly status: NeutralStatus;
  /** Credit per device-hour relative to the median project on the same hosts; null unless fitted. */
  readonly index: number | null;
  readonly low: number | null;
  readonly high: number | null;
  /** Hosts connecting the project to the others (its cells on them are what the fit uses). */
  readonly hosts: number;
  readonly deviceHours: number;
}

export interface PairRatio {
  readonly a: string;
  readonly b: string;
  /** a's credit per device-hour over b's on their shared hosts (median); null below the overlap floor. */
  readonly ratio: number | null;
  readonly hosts: number;
}

export interface ClassIndex {
  readonly projects: ProjectIndex[];
  readonly pairs: PairRatio[];
}

/** A cell counts with enough valid results, device time and some credit. */
export function cellQualifies(c: NeutralCell): boolean {
  return c.results >= NEUTRALITY.minResults && c.deviceSeconds >= NEUTRALITY.minDeviceHours * 3600 && c.credit > 0;
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The q-quantile, linear between order statistics (R's type 7). */
export function quantile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, s.length - 1);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/** ln(credit per device-hour) by host, then project. */
type Table = Map<string, Map<string, number>>;

interface Cell {
  readonly row: number;
  readonly col: number;
  readonly y: number;
}

/**
 * Median polish on `cells` (rows: hosts, columns: projects): sweeps taking each row's median
 * out of it, then each column's, until nothing moves. Returns the column effects.
 */
export function medianPolish(cells: readonly Cell[], rows: number, cols: number): number[] {
  const residual = cells.map((c) => c.y);
  const byRow: number[][] = Array.from({ length: rows }, () => []);
  const byCol: number[][] = Array.from({ length: cols }, () => []);
  cells.forEach((c, i) => {
    byRow[c.row]!.push(i);
    byCol[c.col]!.push(i);
  });
  const effect = new Array<number>(cols).fill(0);
  const sweep = (groups: number[][], onMedian?: (g: number, m: number) => void): number => {
    let moved = 0;
    groups.forEach((members, g) => {
      if (members.length === 0) return;
      const m = median(members.map((i) => residual[i]!));
      for (const i of members) residual[i]! -= m;
      onMedian?.(g, m);
      moved = Math.max(moved, Math.abs(m));
    });
    return moved;
  };
  for (let s = 0; s < NEUTRALITY.polishMaxSweeps; s++) {
    const rowMoved = sweep(byRow);
    const colMoved = sweep(byCol, (g, m) => (effect[g]! += m));
    if (Math.max(rowMoved, colMoved) < NEUTRALITY.polishTolerance) break;
  }
  return effect;
}

/** Project effects of the table's hosts `hosts` (a host may repeat: a bootstrap draw), centred on the median project. */
function centredEffects(table: Table, hosts: readonly string[], projects: readonly string[]): Map<string, number> {
  const colOf = new Map(projects.map((p, i) => [p, i]));
  const cells: Cell[] = [];
  const seen = new Set<number>();
  hosts.forEach((h, row) => {
    for (const [p, y] of table.get(h)!) {
      const col = colOf.get(p);
      if (col === undefined) continue;
      cells.push({ row, col, y });
      seen.add(col);
    }
  });
  const effects = medianPolish(cells, hosts.length, projects.length);
  const present = projects.map((_, i) => i).filter((i) => seen.has(i));
  const centre = median(present.map((i) => effects[i]!));
  return new Map(present.map((i) => [projects[i]!, effects[i]! - centre]));
}

/** Each project's hosts that also have a cell in another of `kept`. */
function connectingHosts(table: Table, kept: ReadonlySet<string>): Map<string, string[]> {
  const out = new Map<string, string[]>([...kept].map((p) => [p, []]));
  for (const [host, row] of table) {
    const mine = [...row.keys()].filter((p) => kept.has(p));
    if (mine.length < 2) continue;
    for (const p of mine) out.get(p)!.push(host);
  }
  return out;
}

/** Drops projects connected by too few hosts until every one left has enough, then keeps the largest connected group. */
function fittedProjects(table: Table, projects: readonly string[]): Set<string> {
  let kept = new Set(projects);
  for (;;) {
    const hosts = connectingHosts(table, kept);
    const next = new Set([...kept].filter((p) => hosts.get(p)!.length >= NEUTRALITY.minConnectingHosts));
    if (next.size === kept.size) break;
    kept = next;
  }
  // Projects joined by a shared host are one group; effects of separate groups are not comparable.
  const group = new Map([...kept].map((p) => [p, p]));
  const find = (p: string): string => (group.get(p) === p ? p : find(group.get(p)!));
  for (const row of table.values()) {
    const mine = [...row.keys()].filter((p) => kept.has(p));
    for (const p of mine.slice(1)) group.set(find(p), find(mine[0]!));
  }
  const hostsOf = connectingHosts(table, kept);
  const size = new Map<string, number>();
  for (const p of kept) size.set(find(p), (size.get(find(p)) ?? 0) + hostsOf.get(p)!.length);
  const best = [...size].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0]?.[0];
  return new Set([...kept].filter((p) => find(p) === best));
}

export function neutralityIndex(cells: readonly NeutralCell[], random: () => number = seededRandom(1)): ClassIndex {
  // One cell per host and project (a caller may pass several app versions' windows).
  const sums = new Map<string, NeutralCell>();
  for (const c of cells) {
    const key = JSON.stringify([c.host, c.project]);
    const s = sums.get(key);
    sums.set(
      key,
      s ? { ...s, credit: s.credit + c.credit, deviceSeconds: s.deviceSeconds + c.deviceSeconds, results: s.results + c.results } : c,
    );
  }
  const table: Table = new Map();
  const deviceSeconds: Table = new Map();
  for (const c of sums.values()) {
    if (!cellQualifies(c)) continue;
    if (!table.has(c.host)) {
      table.set(c.host, new Map());
      deviceSeconds.set(c.host, new Map());
    }
    table.get(c.host)!.set(c.project, Math.log(c.credit / (c.deviceSeconds / 3600)));
    deviceSeconds.get(c.host)!.set(c.project, c.deviceSeconds);
  }
  const projects = [...new Set([...table.values()].flatMap((row) => [...row.keys()]))].sort();
  const fitted = fittedProjects(table, projects);
  const fittedList = projects.filter((p) => fitted.has(p));
  const connecting = connectingHosts(table, fitted);
  const anyOverlap = connectingHosts(table, new Set(projects));
  const fitHosts = [...table.keys()].filter((h) => [...table.get(h)!.keys()].filter((p) => fitted.has(p)).length >= 2).sort();

  const estimate = fittedList.length >= 2 ? centredEffects(table, fitHosts, fittedList) : new Map<string, number>();
  const draws = new Map<string, number[]>(fittedList.map((p) => [p, []]));
  if (estimate.size > 0) {
    for (let b = 0; b < NEUTRALITY.bootstrapSamples; b++) {
      const sample = fitHosts.map(() => fitHosts[Math.floor(random() * fitHosts.length)]!);
      for (const [p, e] of centredEffects(table, sample, fittedList)) draws.get(p)!.push(e);
    }
  }

  const index = projects.map((p): ProjectIndex => {
    const e = estimate.get(p);
    const hosts = e === undefined ? anyOverlap.get(p)! : connecting.get(p)!;
    const hours = hosts.reduce((s, h) => s + deviceSeconds.get(h)!.get(p)! / 3600, 0);
    if (e === undefined)
      return { project: p, status: "insufficient overlap", index: null, low: null, high: null, hosts: hosts.length, deviceHours: hours };
    const d = draws.get(p)!;
    return {
      project: p,
      status: "fitted",
      index: Math.exp(e),
      low: Math.exp(quantile(d, NEUTRALITY.intervalLow)),
      high: Math.exp(quantile(d, NEUTRALITY.intervalHigh)),
      hosts: hosts.length,
      deviceHours: hours,
    };
  });
  return { projects: index, pairs: pairRatios(table, projects) };
}

/** Every pair of projects with a shared host: the median per-host ratio, when enough hosts share them. */
function pairRatios(table: Table, projects: readonly string[]): PairRatio[] {
  const pairs: PairRatio[] = [];
  projects.forEach((a, i) =>
    projects.slice(i + 1).forEach((b) => {
      const logRatios = [...table.values()].flatMap((row) => (row.has(a) && row.has(b) ? [row.get(a)! - row.get(b)!] : []));
      if (logRatios.length === 0) return;
      const enough = logRatios.length >= NEUTRALITY.minConnectingHosts;
      pairs.push({ a, b, ratio: enough ? Math.exp(median(logRatios)) : null, hosts: logRatios.length });
    }),
  );
  return pairs;
}

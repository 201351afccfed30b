/**
 * The geometry of a daily credit chart, as plain numbers: where each day's bar, the RAC line,
 * the axis ticks and the date labels go in an SVG box. Pure, so the scaling is unit-tested
 * apart from the markup (chart.tsx draws what this computes).
 */

export interface ChartDay {
  readonly date: string;
  /** A day, or (history older than the project's daily span) a whole month dated at its first day. */
  readonly period?: "day" | "month";
  /** Credit granted that day: a bar. */
  readonly credit: number;
  /** RAC at the day's end: a point of the line. Same unit (credit per day), same axis. */
  readonly rac: number;
}

export interface ChartBox {
  readonly width: number;
  readonly height: number;
  /** Room around the plot for the axis labels. */
  readonly padLeft: number;
  readonly padRight: number;
  readonly padTop: number;
  readonly padBottom: number;
  /** About the width of a date label in the box's units: labels between the ends that would touch are left out (none without it). */
  readonly labelWidth?: number;
}

export interface ChartBar {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly day: ChartDay;
}

export interface ChartLayout {
  /** The value at the top of the axis. */
  readonly top: number;
  readonly yTicks: readonly { readonly value: number; readonly y: number }[];
  /** Days with credit only: a day without any has no bar. */
  readonly bars: readonly ChartBar[];
  /** SVG path data of the RAC line ("" without days). */
  readonly racPath: string;
  readonly xLabels: readonly { readonly x: number; readonly date: string }[];
  /** The plot area, inside the padding. */
  readonly plot: { readonly left: number; readonly top: number; readonly width: number; readonly height: number };
}

/** The smallest 1, 2, 2.5 or 5 × 10^k at least `x` (x > 0). */
export function niceStep(x: number): number {
  const power = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 2.5, 5, 10]) {
    // A hair of tolerance: 0.3 / 0.1 is 2.9999999999999996, which is 3, not 5.
    if (m * power >= x * (1 - 1e-12)) return m * power;
  }
  return 10 * power;
}

/** Axis ticks from 0 up to at least `max`, about `target` steps of a round size. */
export function axisTicks(max: number, target = 4): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const step = niceStep(max / target);
  const count = Math.ceil(max / step - 1e-9);
  // Multiplying (not adding) keeps 0.1-steps free of drift: 3 × 0.1, not 0.1 + 0.1 + 0.1.
  return Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

/** Coordinates rounded to 0.1: plenty for a screen, and it keeps 365 points short. */
const r1 = (x: number) => Math.round(x * 10) / 10;

/** About `count` evenly spread indexes of `n` days, always the first and the last. */
export function labelIndexes(n: number, count = 5): number[] {
  if (n <= 0) return [];
  if (n === 1) return [0];
  const k = Math.min(count, n) - 1;
  return [...new Set(Array.from({ length: k + 1 }, (_, i) => Math.round((i * (n - 1)) / k)))];
}

/**
 * The labels with room between them: the first is drawn from its x rightwards and the last up to
 * its x (chart.tsx), the others centred, so a label between them that would touch a neighbour is
 * left out (a chart of a week has slots narrower than a date).
 */
export function spacedLabels<T extends { readonly x: number }>(labels: readonly T[], width: number | undefined): T[] {
  if (labels.length <= 2 || width === undefined) return [...labels];
  const last = labels.at(-1)!;
  const kept = [labels[0]!];
  for (const label of labels.slice(1, -1)) {
    const gapBefore = label.x - kept.at(-1)!.x - (kept.length === 1 ? width : width / 2);
    const gapAfter = last.x - label.x - width;
    if (gapBefore >= width / 2 + 4 && gapAfter >= width / 2 + 4) kept.push(label);
  }
  return [...kept, last];
}

export function layoutChart(days: readonly ChartDay[], box: ChartBox): ChartLayout {
  const plot = {
    left: box.padLeft,
    top: box.padTop,
    width: box.width - box.padLeft - box.padRight,
    height: box.height - box.padTop - box.padBottom,
  };
  const max = Math.max(0, ...days.map((d) => Math.max(d.credit, d.rac)));
  const ticks = axisTicks(max);
  const top = ticks.at(-1)!;
  const yOf = (v: number) => plot.top + plot.height * (1 - Math.max(0, v) / top);
  const slot = days.length > 0 ? plot.width / days.length : plot.width;
  const xMid = (i: number) => plot.left + (i + 0.5) * slot;
  // A gap between bars while they are wide enough to show one; touching bars beyond that.
  const barWidth = slot >= 4 ? slot * 0.8 : slot;
  const bars = days.flatMap((day, i) => {
    if (!(day.credit > 0)) return [];
    const y = yOf(day.credit);
    return [{ x: r1(xMid(i) - barWidth / 2), y: r1(y), width: r1(barWidth), height: r1(plot.top + plot.height - y), day }];
  });
  const racPath = days.map((d, i) => `${i === 0 ? "M" : "L"}${r1(xMid(i))} ${r1(yOf(d.rac))}`).join(" ");
  return {
    top,
    yTicks: ticks.map((value) => ({ value, y: r1(yOf(value)) })),
    bars,
    racPath,
    xLabels: spacedLabels(
      labelIndexes(days.length).map((i) => ({ x: r1(xMid(i)), date: days[i]!.date })),
      box.labelWidth,
    ),
    plot,
  };
}

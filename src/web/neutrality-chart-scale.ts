/**
 * The geometry of the neutrality chart: one row per fitted project, a bar from 1 (the median
 * project) to its index and a whisker over its 90% interval, on a log axis so that paying
 * twice and paying half lie the same distance from 1. Pure, tested apart from the markup.
 */

export interface IndexRow {
  readonly slug: string;
  readonly index: number;
  readonly low: number;
  readonly high: number;
}

export interface IndexChartBox {
  readonly width: number;
  readonly padLeft: number;
  readonly padRight: number;
  readonly padTop: number;
  readonly rowHeight: number;
  readonly padBottom: number;
}

export interface IndexChartLayout {
  readonly height: number;
  /** Where 1 (the median project) is. */
  readonly centre: number;
  readonly ticks: readonly { readonly value: number; readonly x: number }[];
  readonly rows: readonly {
    readonly row: IndexRow;
    readonly y: number;
    readonly barX: number;
    readonly barWidth: number;
    readonly lowX: number;
    readonly highX: number;
  }[];
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/** The axis runs from 2^−k to 2^k, k the smallest whole number (at least 1) that holds every interval. */
export function axisPowers(rows: readonly IndexRow[]): number {
  const reach = Math.max(1, ...rows.flatMap((r) => [r.low, r.high, r.index].map((v) => Math.abs(Math.log2(v)))));
  return Math.ceil(reach - 1e-9);
}

export function layoutIndexChart(rows: readonly IndexRow[], box: IndexChartBox): IndexChartLayout {
  const k = axisPowers(rows);
  const plotWidth = box.width - box.padLeft - box.padRight;
  const xOf = (v: number) => box.padLeft + plotWidth * ((Math.log2(v) + k) / (2 * k));
  const centre = xOf(1);
  return {
    height: box.padTop + rows.length * box.rowHeight + box.padBottom,
    centre: r1(centre),
    ticks: Array.from({ length: 2 * k + 1 }, (_, i) => 2 ** (i - k)).map((value) => ({ value, x: r1(xOf(value)) })),
    rows: rows.map((row, i) => {
      const x = xOf(row.index);
      return {
        row,
        y: r1(box.padTop + i * box.rowHeight),
        barX: r1(Math.min(x, centre)),
        barWidth: r1(Math.abs(x - centre)),
        lowX: r1(xOf(row.low)),
        highX: r1(xOf(row.high)),
      };
    }),
  };
}

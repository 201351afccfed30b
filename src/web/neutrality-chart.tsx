/** The neutrality index of one resource class as inline SVG (geometry: neutrality-chart-scale.ts). */
import { formatStatistic } from "./format";
import { type IndexChartBox, type IndexRow, layoutIndexChart } from "./neutrality-chart-scale";

const BOX: IndexChartBox = { width: 640, padLeft: 160, padRight: 16, padTop: 8, rowHeight: 28, padBottom: 28 };

export function IndexChart(props: { rows: readonly IndexRow[]; label: string }) {
  const l = layoutIndexChart(props.rows, BOX);
  const bottom = l.height - BOX.padBottom;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${BOX.width} ${l.height}`} role="img" aria-label={props.label} class="chart-svg index-chart">
        <title>{props.label}</title>
        {l.ticks.map((t) => (
          <g class="tick">
            <line x1={t.x} x2={t.x} y1={BOX.padTop} y2={bottom} />
            <text x={t.x} y={bottom + 18} text-anchor="middle">
              {`${formatStatistic(t.value)}×`}
            </text>
          </g>
        ))}
        {l.rows.map((r) => (
          <g class="project" data-project={r.row.slug}>
            <text x={BOX.padLeft - 8} y={r.y + BOX.rowHeight / 2 + 4} text-anchor="end">
              {r.row.slug}
            </text>
            <rect class={r.row.index >= 1 ? "over" : "under"} x={r.barX} y={r.y + 6} width={r.barWidth} height={BOX.rowHeight - 12}>
              <title>{`${r.row.slug}: ${formatStatistic(r.row.index)} × the median project (90%: ${formatStatistic(r.row.low)} – ${formatStatistic(r.row.high)})`}</title>
            </rect>
            <line class="interval" x1={r.lowX} x2={r.highX} y1={r.y + BOX.rowHeight / 2} y2={r.y + BOX.rowHeight / 2} />
          </g>
        ))}
        <line class="centre" x1={l.centre} x2={l.centre} y1={BOX.padTop} y2={bottom} />
      </svg>
      <figcaption>
        Credit per device-hour over the median project's, on the same hosts (log scale). Bars from 1 to the index; the line across each bar
        is its 90% interval.
      </figcaption>
    </figure>
  );
}

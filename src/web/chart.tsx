/**
 * A daily credit chart as inline SVG, drawn on the server: bars for the credit of each day,
 * a line for the RAC at each day's end (both credit per day, one axis). No script, no
 * library; each bar has a <title>, which browsers show as a tooltip.
 */
import { type ChartBox, type ChartDay, layoutChart } from "./chart-scale";
import { formatCompact, formatCredit, formatRate } from "./format";

// Room on the left for labels such as "2.5 k" even at the larger type of narrow screens.
// A date ("2026-11-25") at the chart's 12-unit type is about 70 wide.
const BOX: ChartBox = { width: 640, height: 260, padLeft: 64, padRight: 12, padTop: 12, padBottom: 32, labelWidth: 70 };

/** The first day charted as a day when the chart starts with months, else null. */
function monthlyUntil(days: readonly ChartDay[]): string | null {
  if (days[0]?.period !== "month") return null;
  return days.find((d) => d.period !== "month")?.date ?? "today";
}

/** What a chart of `name`'s days says it shows: the window asked for, or, when it starts later, from which day. */
export function chartLabel(name: string, window: number, days: readonly ChartDay[]): string {
  const from = startsLate(window, days);
  return from === null
    ? `${name}: credit per day and RAC, last ${window} days`
    : `${name}: credit per day and RAC since ${from}, the first credit`;
}

/** The first day charted when the chart starts at the first credit, after the window's start (else null). */
function startsLate(window: number, days: readonly ChartDay[]): string | null {
  return days.length < window && days[0]?.period !== "month" ? (days[0]?.date ?? null) : null;
}

export function CreditChart(props: { days: readonly ChartDay[]; label: string; window: number }) {
  const l = layoutChart(props.days, BOX);
  const from = startsLate(props.window, props.days);
  const bottom = l.plot.top + l.plot.height;
  const empty = l.bars.length === 0 && props.days.every((d) => !(d.rac > 0));
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${BOX.width} ${BOX.height}`} role="img" aria-label={props.label} class="chart-svg">
        <title>{props.label}</title>
        {l.yTicks.map((t) => (
          <g class="tick">
            <line x1={l.plot.left} x2={l.plot.left + l.plot.width} y1={t.y} y2={t.y} />
            <text x={l.plot.left - 6} y={t.y + 4} text-anchor="end">
              {formatCompact(t.value)}
            </text>
          </g>
        ))}
        <g class="bars">
          {l.bars.map((b) => (
            <rect x={b.x} y={b.y} width={b.width} height={b.height}>
              <title>{`${b.day.date}: ${formatCredit(b.day.credit)} credit, RAC ${formatRate(b.day.rac)}`}</title>
            </rect>
          ))}
        </g>
        {l.racPath === "" ? null : <path class="rac" d={l.racPath} />}
        {l.xLabels.map((x, i) => (
          <text
            class={i === 0 || i === l.xLabels.length - 1 ? "date" : "date mid"}
            x={x.x}
            y={bottom + 22}
            text-anchor={i === 0 ? "start" : i === l.xLabels.length - 1 ? "end" : "middle"}
          >
            {x.date}
          </text>
        ))}
        {empty ? (
          <text class="empty" x={l.plot.left + l.plot.width / 2} y={l.plot.top + l.plot.height / 2} text-anchor="middle">
            No credit in these days
          </text>
        ) : null}
      </svg>
      <figcaption>
        <span class="key key-credit" /> credit granted per day (UTC) <span class="key key-rac" /> RAC at the day's end
        {from === null ? null : (
          <span class="first-credit-note">{` The chart starts at ${from}: no credit before it in the last ${props.window} days.`}</span>
        )}
        {monthlyUntil(props.days) === null ? null : (
          <span class="monthly-note">
            {` Before ${monthlyUntil(props.days)}, history is kept as monthly totals: each bar there is a whole month's credit, dated at the month's first day.`}
          </span>
        )}
      </figcaption>
    </figure>
  );
}

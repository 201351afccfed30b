/**
 * Numbers and times as people read them on the pages: "12,345", "6.94", "3.2 k/day",
 * "2026-11-21 07:30 UTC". Pure; English only (the pages are in English), so the output does
 * not depend on the machine's locale.
 */

const wholeGrouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const twoDecimals = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const threeSignificant = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 3 });
const fourSignificant = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 4 });

/** −0 and round-off dust (a total counted back from a sum) read as "0". */
const clean = (x: number) => (Math.abs(x) < 1e-9 ? 0 : x);

/** A count: "12,345". */
export function formatCount(n: number): string {
  return wholeGrouped.format(clean(n));
}

/** Credit: whole credits with thousands separators from 100 on, two decimals below ("6.94"). */
export function formatCredit(x: number): string {
  const v = clean(x);
  if (!Number.isFinite(v)) return "–";
  const abs = Math.abs(v);
  if (abs >= 100 || v === 0) return wholeGrouped.format(Math.round(v) || 0);
  // Credit is never negative; a tiny negative is round-off.
  if (abs < 0.005) return v > 0 ? "< 0.01" : "0";
  return twoDecimals.format(v);
}

const UNITS = [
  { suffix: "k", scale: 1e3 },
  { suffix: "M", scale: 1e6 },
  { suffix: "G", scale: 1e9 },
  { suffix: "T", scale: 1e12 },
  { suffix: "P", scale: 1e15 },
] as const;

/**
 * A short number for rates and axis labels: three significant digits below 1,000 ("850",
 * "6.94"), then k, M, G… with one decimal under 10 ("3.2 k") and none above ("12 k").
 */
export function formatCompact(x: number): string {
  const v = clean(x);
  if (!Number.isFinite(v)) return "–";
  const abs = Math.abs(v);
  const sign = v < 0 ? "−" : "";
  // 999.5 would round to "1,000" below: it reads better as "1.0 k".
  if (abs < 999.5) {
    if (abs < 0.01) return v > 0 ? "< 0.01" : "0";
    return sign + threeSignificant.format(abs);
  }
  for (const [i, unit] of UNITS.entries()) {
    const scaled = abs / unit.scale;
    const text = scaled < 9.95 ? scaled.toFixed(1) : String(Math.round(scaled));
    // 999,600 rounds to "1000 k": the next unit says it better ("1.0 M").
    if (Number(text) < 1000 || i === UNITS.length - 1) return `${sign}${text} ${unit.suffix}`;
  }
  return "–"; // not reached: the last unit always answers
}

/** Credit per day (RAC): "3.2 k/day", "6.94/day". */
export function formatRate(x: number): string {
  return `${formatCompact(x)}/day`;
}

/** A statistic such as pfc_avg or pfc_scale: four significant digits, exponent when tiny or huge. */
export function formatStatistic(x: number): string {
  if (!Number.isFinite(x)) return "–";
  if (x === 0) return "0";
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e6) return fourSignificant.format(x);
  return x.toExponential(3);
}

/** Unix seconds as "2026-11-21 07:30 UTC". */
export function formatTime(unixSeconds: number): string {
  const iso = new Date(unixSeconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

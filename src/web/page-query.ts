/**
 * The pages' query strings: the chart window (days) and the leaderboard order (by). A value
 * the switches never make falls back to the default: a page is for reading, not an API to
 * reject requests of.
 */
import type { LeaderboardOrder } from "../snapshots/keys";

export const CHART_WINDOWS = [30, 90, 365] as const;
export type ChartWindow = (typeof CHART_WINDOWS)[number];
const DEFAULT_WINDOW: ChartWindow = 90;

export function chartWindow(days: string | undefined): ChartWindow {
  return CHART_WINDOWS.find((d) => String(d) === days) ?? DEFAULT_WINDOW;
}

export const BOARD_ORDERS: readonly { by: LeaderboardOrder; text: string }[] = [
  { by: "expavg_credit", text: "by RAC" },
  { by: "total_credit", text: "by total" },
];

export function boardOrder(by: string | undefined): LeaderboardOrder {
  return by === "total_credit" ? "total_credit" : "expavg_credit";
}

/**
 * `/p/:slug/{users,hosts,teams}/:id`: one credit holder's total, RAC decayed to now, daily
 * credit and RAC over a window, credit per app, and the link up (host → user → team).
 */
import type { LinkedAmCredit } from "../db/am-history";
import type { HolderSnapshot } from "../snapshots/holders";
import type { HolderKind } from "../snapshots/keys";
import { racAt } from "../snapshots/present";
import { AmCreditTable } from "./am-credit-table";
import { CreditChart, chartLabel } from "./chart";
import type { ChartDay } from "./chart-scale";
import { formatCount, formatCredit, formatRate, formatTime } from "./format";
import { Layout } from "./layout";
import { oneOf, pageUrls } from "./links";
import { CHART_WINDOWS, type ChartWindow } from "./page-query";
import { Fact, Num, Scroll, Switch } from "./parts";

/** The holder one level up: a host's user or a user's team (name null when it has none or is unknown). */
export interface Owner {
  readonly kind: HolderKind;
  readonly id: number;
  readonly name: string | null;
  /** False when no snapshot of it exists: then it is named, not linked (the link would be a 404). */
  readonly known: boolean;
}

export interface HolderPageProps {
  readonly slug: string;
  readonly projectName: string;
  readonly kind: HolderKind;
  readonly holder: Omit<HolderSnapshot, "history">;
  readonly owner: Owner | null;
  /** Users: credit of their hosts reported to account managers (empty without linked hosts). */
  readonly amCredit: readonly LinkedAmCredit[];
  readonly window: ChartWindow;
  readonly days: readonly ChartDay[];
  readonly asOf: number;
  readonly snapshotTime: number;
}

const displayName = (kind: HolderKind, id: number, name: string | null | undefined) =>
  name === null || name === undefined || name === "" ? `${capitalized(oneOf(kind))} ${id}` : name;
const capitalized = (s: string) => s[0]!.toUpperCase() + s.slice(1);

export function HolderPage(p: HolderPageProps) {
  const { holder, kind } = p;
  const rac = racAt(holder, p.asOf);
  const title = displayName(kind, holder.id, holder.name);
  const here = (days: ChartWindow) => pageUrls.holder(p.slug, kind, holder.id, { days });
  return (
    <Layout title={title} crumbs={[{ href: pageUrls.project(p.slug), text: p.projectName }]} snapshotTime={p.snapshotTime}>
      <p class="muted">{`${capitalized(oneOf(kind))} ${holder.id} of ${p.projectName}`}</p>
      <dl class="facts">
        <Fact term="Total credit">
          <Num name="total_credit" value={holder.total_credit} text={formatCredit(holder.total_credit)} />
        </Fact>
        <Fact term="RAC">
          <Num name="recent_average_credit" value={rac} text={formatRate(rac)} />
        </Fact>
        <Fact term="Since">{formatTime(holder.create_time).slice(0, 10)}</Fact>
        {p.owner ? (
          <Fact term={capitalized(oneOf(p.owner.kind))}>
            {p.owner.known ? (
              <a id="owner" href={pageUrls.holder(p.slug, p.owner.kind, p.owner.id)}>
                {displayName(p.owner.kind, p.owner.id, p.owner.name)}
              </a>
            ) : (
              displayName(p.owner.kind, p.owner.id, null)
            )}
          </Fact>
        ) : null}
        {holder.cpid ? <Fact term="Cross-project id">{holder.cpid}</Fact> : null}
      </dl>

      <h2>Daily credit</h2>
      <Switch label="Days" options={CHART_WINDOWS.map((d) => ({ href: here(d), text: String(d), current: d === p.window }))} />
      <CreditChart days={p.days} window={p.window} label={chartLabel(title, p.window, p.days)} />

      {holder.apps ? <AppCreditTable apps={holder.apps} asOf={p.asOf} /> : null}
      {p.amCredit.length > 0 ? <AmCreditTable rows={p.amCredit} days={p.window} /> : null}
    </Layout>
  );
}

function AppCreditTable(props: { apps: NonNullable<HolderSnapshot["apps"]>; asOf: number }) {
  return (
    <>
      <h2>Credit per app</h2>
      {props.apps.length === 0 ? (
        <p class="muted">No credit yet.</p>
      ) : (
        <Scroll>
          <table id="app-credit">
            <thead>
              <tr>
                <th>App</th>
                <th class="num">Total credit</th>
                <th class="num">RAC</th>
                <th class="num">Jobs</th>
              </tr>
            </thead>
            <tbody>
              {props.apps.map((a) => {
                const rac = racAt(a, props.asOf);
                return (
                  <tr data-app={a.app}>
                    <td>{a.app}</td>
                    <td class="num">
                      <Num name="total_credit" value={a.total_credit} text={formatCredit(a.total_credit)} />
                    </td>
                    <td class="num">
                      <Num name="recent_average_credit" value={rac} text={formatRate(rac)} />
                    </td>
                    <td class="num">{formatCount(a.jobs)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Scroll>
      )}
    </>
  );
}

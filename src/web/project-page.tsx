/**
 * `/p/:slug`: a project's totals, its apps and app versions with their scales (what a
 * project admin reads in BOINC's app_version table), its leaderboards and its daily credit.
 */
import type { appBody, appVersionBody } from "../snapshots/catalog-bodies";
import type { HolderKind, LeaderboardOrder } from "../snapshots/keys";
import type { LeaderboardEntry } from "../snapshots/leaderboard";
import { racAt } from "../snapshots/present";
import type { ProjectSummary } from "../snapshots/project";
import type { NeutralityBody } from "../snapshots/neutrality.body";
import { CreditChart, chartLabel } from "./chart";
import { ProjectNeutrality } from "./neutrality-page";
import type { ChartDay } from "./chart-scale";
import { formatCount, formatCredit, formatRate, formatStatistic, formatTime } from "./format";
import { Layout } from "./layout";
import { pageUrls, safeHref } from "./links";
import { BOARD_ORDERS, CHART_WINDOWS, type ChartWindow } from "./page-query";
import { Fact, Num, Scroll, Switch } from "./parts";

export interface Board {
  readonly kind: HolderKind;
  readonly total: number;
  readonly entries: readonly LeaderboardEntry[];
}

export interface ProjectPageProps {
  readonly project: ProjectSummary;
  readonly apps: readonly ReturnType<typeof appBody>[];
  readonly versions: readonly ReturnType<typeof appVersionBody>[];
  /** The deployment's neutrality index (GET /v1/central/neutrality); the page shows this project's. */
  readonly neutrality?: NeutralityBody;
  readonly boards: readonly Board[];
  readonly by: LeaderboardOrder;
  readonly window: ChartWindow;
  readonly days: readonly ChartDay[];
  readonly asOf: number;
  readonly snapshotTime: number;
}

/**
 * What an app version's RAC is (docs/pages.md): BOINC's own average of the version, which
 * starts from its first job's credit divided by that job's turnaround (docs/spec/credit.md#end-of-the-pass).
 */
const VERSION_RAC_NOTE =
  "Version RAC is BOINC's own recent average for the app version (app_version.expavg_credit), which weighs the versions in the plan-class scale table. " +
  "It is not credit per day of any host or user: it starts from the first job's credit divided by that job's turnaround, so it can stand far above the project's RAC.";

export function ProjectPage(p: ProjectPageProps) {
  const { project, asOf } = p;
  const rac = racAt(project, asOf);
  const href = safeHref(project.url);
  const here = (q: { by?: LeaderboardOrder; days?: ChartWindow }) => pageUrls.project(project.slug, { by: p.by, days: p.window, ...q });
  return (
    <Layout title={project.name} snapshotTime={p.snapshotTime}>
      {project.url === null ? null : <p>{href === null ? project.url : <a href={href}>{project.url}</a>}</p>}
      <dl class="facts">
        <Fact term="Total credit">
          <Num name="total_credit" value={project.total_credit} text={formatCredit(project.total_credit)} />
        </Fact>
        <Fact term="RAC">
          <Num name="recent_average_credit" value={rac} text={formatRate(rac)} />
        </Fact>
        <Fact term="Users">{formatCount(project.users)}</Fact>
        <Fact term="Hosts">{formatCount(project.hosts)}</Fact>
        <Fact term="Teams">{formatCount(project.teams)}</Fact>
        {/* Its first credit: a backfilled project's history starts long before it was created here. */}
        <Fact term="Since">{project.first_credit_time == null ? "no credit yet" : formatTime(project.first_credit_time).slice(0, 10)}</Fact>
      </dl>

      <h2>Daily credit</h2>
      <Switch label="Days" options={CHART_WINDOWS.map((d) => ({ href: here({ days: d }), text: String(d), current: d === p.window }))} />
      <CreditChart days={p.days} window={p.window} label={chartLabel(project.name, p.window, p.days)} />

      <h2>Top</h2>
      <Switch label="Order" options={BOARD_ORDERS.map((o) => ({ href: here({ by: o.by }), text: o.text, current: o.by === p.by }))} />
      <div class="boards">
        {p.boards.map((b) => (
          <BoardTable board={b} slug={project.slug} asOf={asOf} />
        ))}
      </div>

      {p.neutrality ? <ProjectNeutrality slug={project.slug} body={p.neutrality} /> : null}

      <h2>Apps</h2>
      <Scroll>
        <table id="apps">
          <thead>
            <tr>
              <th>App</th>
              <th>Credit mode</th>
              <th class="num">min_avg_pfc</th>
              <th class="num">Max credit per job</th>
              <th>Credit policy</th>
              <th class="num">Fair level S</th>
              <th>Fair anchor</th>
            </tr>
          </thead>
          <tbody>
            {p.apps.map((a) => (
              <tr>
                <td class="name">
                  {a.name}
                  {a.deprecated ? <span class="muted"> (deprecated)</span> : null}
                </td>
                <td>{a.credit_mode}</td>
                <td class="num">{formatStatistic(a.min_avg_pfc)}</td>
                <td class="num">{a.max_granted_credit > 0 ? formatCredit(a.max_granted_credit) : "no cap"}</td>
                <td>{a.credit_policy}</td>
                <td class="num">{a.fair_level == null ? "—" : formatStatistic(a.fair_level)}</td>
                <td>
                  <FairAnchor app={a} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>

      <h2>App versions</h2>
      <Scroll>
        <table id="app-versions">
          <thead>
            <tr>
              <th class="num">Id</th>
              <th>App</th>
              <th>Platform</th>
              <th>Plan class</th>
              <th class="num">Version</th>
              <th class="num" title="PFC samples (pfc_n)">
                Samples
              </th>
              <th class="num">pfc_avg</th>
              <th class="num">pfc_scale</th>
              <th class="num" title={VERSION_RAC_NOTE}>
                Version RAC*
              </th>
            </tr>
          </thead>
          <tbody>
            {p.versions.map((v) => {
              const vRac = racAt(v, asOf);
              return (
                <tr data-id={String(v.id)}>
                  <td class="num">{v.id}</td>
                  <td>{v.app}</td>
                  <td>{v.platform}</td>
                  <td>{v.plan_class === "" ? <span class="muted">(CPU)</span> : v.plan_class}</td>
                  <td class="num">
                    {v.version_num}
                    {v.deprecated ? <span class="muted"> (deprecated)</span> : null}
                  </td>
                  <td class="num">
                    <Num name="pfc_n" value={v.pfc_n} text={formatCount(v.pfc_n)} />
                  </td>
                  <td class="num">
                    <Num name="pfc_avg" value={v.pfc_avg} text={formatStatistic(v.pfc_avg)} />
                  </td>
                  <td class="num">
                    <Num name="pfc_scale" value={v.pfc_scale} text={formatStatistic(v.pfc_scale)} />
                  </td>
                  <td class="num">
                    <Num name="recent_average_credit" value={vRac} text={formatRate(vRac)} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Scroll>
      <p class="muted" id="version-rac-note">{`* ${VERSION_RAC_NOTE}`}</p>
    </Layout>
  );
}

function BoardTable(props: { board: Board; slug: string; asOf: number }) {
  const { board } = props;
  const one = board.kind.slice(0, -1);
  return (
    <section>
      <h3>{`Top ${board.kind}`}</h3>
      {board.entries.length === 0 ? (
        <p class="muted">{`No ${board.kind} yet.`}</p>
      ) : (
        <Scroll>
          <table id={`top-${board.kind}`}>
            <thead>
              <tr>
                <th class="num">#</th>
                <th>{one[0]!.toUpperCase() + one.slice(1)}</th>
                <th class="num">RAC</th>
                <th class="num">Total</th>
              </tr>
            </thead>
            <tbody>
              {board.entries.map((e) => {
                const rac = racAt(e, props.asOf);
                return (
                  <tr data-id={String(e.id)}>
                    <td class="num">{e.rank}</td>
                    <td class="name">
                      <a href={pageUrls.holder(props.slug, board.kind, e.id)}>{e.name ?? `${one} ${e.id}`}</a>
                    </td>
                    <td class="num">
                      <Num name="recent_average_credit" value={rac} text={formatRate(rac)} />
                    </td>
                    <td class="num">
                      <Num name="total_credit" value={e.total_credit} text={formatCredit(e.total_credit)} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Scroll>
      )}
      {board.total > board.entries.length ? <p class="muted">{`${formatCount(board.total)} ${board.kind} in all.`}</p> : null}
    </section>
  );
}

/**
 * The fair policy's anchor of an app (docs/fair-credit.md#the-alarm-and-the-re-base): when it was
 * taken, and the alarm when the clamp holds S at 3% from it.
 */
function FairAnchor({ app }: { app: ReturnType<typeof appBody> }) {
  const rebased = app.fair_rebased_at == null ? null : `re-based ${formatTime(app.fair_rebased_at).slice(0, 10)}`;
  if (app.fair_s_ref == null) return <span class="muted">{rebased ?? "not anchored"}</span>;
  const anchored = `S_ref ${formatStatistic(app.fair_s_ref)}, anchored ${formatTime(app.fair_anchored_at ?? 0).slice(0, 10)}`;
  return (
    <span>
      {anchored}
      {rebased ? `; ${rebased}` : null}
      {app.fair_held_at_anchor_limit ? (
        <strong class="alarm" role="status">
          {` held at its limit: S_raw ${formatStatistic(app.fair_s_raw ?? 0)} (${formatStatistic((app.fair_s_raw ?? 0) / app.fair_s_ref)} × S_ref)`}
        </strong>
      ) : null}
    </span>
  );
}

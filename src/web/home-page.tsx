/** `/`: the projects of this deployment with their totals. */
import { racAt } from "../snapshots/present";
import type { ProjectSummary } from "../snapshots/project";
import { formatCount, formatCredit, formatRate } from "./format";
import { Layout } from "./layout";
import { pageUrls } from "./links";
import { Num, Scroll } from "./parts";

export function HomePage(props: { projects: readonly ProjectSummary[]; asOf: number; snapshotTime: number }) {
  return (
    <Layout title="Projects" snapshotTime={props.snapshotTime}>
      {props.projects.length === 0 ? (
        <p>No projects yet.</p>
      ) : (
        <Scroll>
          <table id="projects">
            <thead>
              <tr>
                <th>Project</th>
                <th class="num">Total credit</th>
                <th class="num">RAC</th>
                <th class="num">Users</th>
                <th class="num">Hosts</th>
                <th class="num">Teams</th>
              </tr>
            </thead>
            <tbody>
              {props.projects.map((p) => {
                const rac = racAt(p, props.asOf);
                return (
                  <tr data-slug={p.slug}>
                    <td class="name">
                      <a href={pageUrls.project(p.slug)}>{p.name}</a>
                    </td>
                    <td class="num">
                      <Num name="total_credit" value={p.total_credit} text={formatCredit(p.total_credit)} />
                    </td>
                    <td class="num">
                      <Num name="recent_average_credit" value={rac} text={formatRate(rac)} />
                    </td>
                    <td class="num">{formatCount(p.users)}</td>
                    <td class="num">{formatCount(p.hosts)}</td>
                    <td class="num">{formatCount(p.teams)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Scroll>
      )}
      <p>
        Across projects: the <a href="/central">plan-class scale table</a>.
      </p>
    </Layout>
  );
}

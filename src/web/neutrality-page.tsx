/**
 * `/central/neutrality`: the project-neutrality index (GET /v1/central/neutrality) per
 * resource class, as a chart and tables; and the piece of a project page that shows its own.
 */
import type { NeutralityBody, NeutralityClass } from "../snapshots/neutrality.body";
import { formatCount, formatStatistic } from "./format";
import { Layout } from "./layout";
import { IndexChart } from "./neutrality-chart";
import { pageUrls } from "./links";
import { Num, Scroll } from "./parts";

/** An index as people compare it: two decimals (the interval says how far to trust them). */
const formatIndex = (x: number) => x.toFixed(2);

const className = (c: string) => (c === "cpu" ? "CPU" : `GPU (${c})`);

type ProjectRow = NeutralityClass["projects"][number];

export function NeutralityPage(props: { body: NeutralityBody }) {
  const b = props.body;
  return (
    <Layout title="Project neutrality" snapshotTime={b.as_of ?? undefined} showsRac={false}>
      <p>
        What each project of this deployment pays per device-hour, relative to the median project, measured on the same hosts (joined by{" "}
        <code>host_cpid</code>) over the last {b.window_days} days. 2.00 means twice the median project for the same hardware. Nothing here
        changes anyone's credit.
      </p>
      {b.classes.length === 0 ? (
        <p id="no-index">No index yet: it needs hosts attached to two projects or more, with enough results in each.</p>
      ) : (
        b.classes.map((c) => <ClassSection cls={c} />)
      )}
      <p class="muted">
        As JSON: <a href="/v1/central/neutrality">/v1/central/neutrality</a>. Also: <a href="/central">plan-class scales</a>.
      </p>
    </Layout>
  );
}

function ClassSection(props: { cls: NeutralityClass }) {
  const c = props.cls;
  const fitted = c.projects.flatMap((p) =>
    p.index !== null && p.low !== null && p.high !== null ? [{ slug: p.slug, index: p.index, low: p.low, high: p.high }] : [],
  );
  return (
    <section id={`class-${c.class}`}>
      <h2>{className(c.class)}</h2>
      {fitted.length > 0 ? (
        <IndexChart rows={fitted} label={`${className(c.class)}: credit per device-hour relative to the median project`} />
      ) : null}
      <Scroll>
        <table>
          <thead>
            <tr>
              <th>Project</th>
              <th class="num">Index</th>
              <th class="num">90% interval</th>
              <th class="num">Shared hosts</th>
              <th class="num">Device-hours</th>
            </tr>
          </thead>
          <tbody>
            {c.projects.map((p) => (
              <tr data-project={p.slug}>
                <td class="name">
                  <a href={pageUrls.project(p.slug)}>{p.slug}</a>
                </td>
                <IndexCells p={p} />
                <td class="num">{formatCount(p.hosts)}</td>
                <td class="num">{formatStatistic(p.device_hours)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {c.pairs.length === 0 ? null : (
        <details>
          <summary>Pairwise ratios</summary>
          <Scroll>
            <table>
              <thead>
                <tr>
                  <th>Project a</th>
                  <th>Project b</th>
                  <th class="num">a pays × b</th>
                  <th class="num">Shared hosts</th>
                </tr>
              </thead>
              <tbody>
                {c.pairs.map((x) => (
                  <tr>
                    <td>{x.a}</td>
                    <td>{x.b}</td>
                    <td class="num">
                      {x.ratio === null ? (
                        <span class="muted">insufficient overlap</span>
                      ) : (
                        <Num name="ratio" value={x.ratio} text={formatIndex(x.ratio)} />
                      )}
                    </td>
                    <td class="num">{formatCount(x.hosts)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        </details>
      )}
    </section>
  );
}

function IndexCells(props: { p: ProjectRow }) {
  const p = props.p;
  if (p.index === null || p.low === null || p.high === null) {
    return (
      <td class="num muted" colspan={2}>
        insufficient overlap
      </td>
    );
  }
  return (
    <>
      <td class="num">
        <Num name="neutrality_index" value={p.index} text={formatIndex(p.index)} />
      </td>
      <td class="num">{`${formatIndex(p.low)} – ${formatIndex(p.high)}`}</td>
    </>
  );
}

/** A project page's own index, per resource class it appears in. */
export function ProjectNeutrality(props: { slug: string; body: NeutralityBody }) {
  const mine = props.body.classes.flatMap((c) => c.projects.filter((p) => p.slug === props.slug).map((p) => ({ cls: c.class, p })));
  return (
    <section id="neutrality">
      <h2>Credit per device-hour, compared</h2>
      {mine.length === 0 ? (
        <p class="muted" id="neutrality-none">
          Not compared yet: too few of this project's hosts also run other projects here. The{" "}
          <a href="/central/neutrality">neutrality index</a> compares the projects that share enough hosts.
        </p>
      ) : (
        <>
          <Scroll>
            <table>
              <thead>
                <tr>
                  <th>Resource</th>
                  <th class="num">Index</th>
                  <th class="num">90% interval</th>
                  <th class="num">Shared hosts</th>
                </tr>
              </thead>
              <tbody>
                {mine.map(({ cls, p }) => (
                  <tr>
                    <td>{className(cls)}</td>
                    <IndexCells p={p} />
                    <td class="num">{formatCount(p.hosts)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
          <p class="muted">
            An index of 1.00 pays what the median project of this deployment pays on the same hosts; every project's index:{" "}
            <a href="/central/neutrality">the neutrality index</a>.
          </p>
        </>
      )}
    </section>
  );
}

/**
 * `/central`: the cross-project plan-class scale table (GET /v1/plan-classes), for project
 * admins who scale GPU-only apps with it.
 */
import type { ScaleTableBody } from "../snapshots/plan-classes.body";
import { formatCount, formatRate, formatStatistic } from "./format";
import { Layout } from "./layout";
import { Num, Scroll } from "./parts";

type Row = ScaleTableBody["proc_types"][number] & { plan_class?: string };

export function CentralPage(props: { table: ScaleTableBody }) {
  const t = props.table;
  return (
    <Layout title="Plan-class scales" snapshotTime={t.version ?? undefined} showsRac={false}>
      <p>
        The average <code>pfc_scale</code> of app versions per plan class and processor type, over every project that reports here, each
        version weighted by its recent credit. An app with only GPU versions may be scaled by it (
        <code>gpu_only_scale: "cross-project"</code>) instead of BOINC's constant {formatStatistic(t.default_gpu_scale)}.
      </p>
      {t.version === null ? (
        <p id="no-table">No table has been published yet: BOINC's {formatStatistic(t.default_gpu_scale)} applies.</p>
      ) : (
        <>
          <p class="muted">
            {`From ${formatCount(t.nsources)} project${t.nsources === 1 ? "" : "s"}; apps with CPU and GPU versions of at least ${formatCount(t.min_pfc_n)} samples each; reports older than ${t.stale_after_days} days left out.`}
          </p>
          <h2>By processor type</h2>
          <ScaleTable id="proc-types" rows={t.proc_types} />
          <h2>By plan class</h2>
          <ScaleTable id="plan-classes" rows={t.plan_classes} withPlanClass />
        </>
      )}
      <p class="muted">
        As JSON: <a href="/v1/plan-classes">/v1/plan-classes</a>; in the shape of BOINC's gpu_ratios.php:{" "}
        <a href="/v1/plan-classes?format=xml">?format=xml</a>. What each project pays per device-hour on shared hosts:{" "}
        <a href="/central/neutrality">project neutrality</a>.
      </p>
    </Layout>
  );
}

function ScaleTable(props: { id: string; rows: readonly Row[]; withPlanClass?: boolean }) {
  if (props.rows.length === 0) return <p class="muted">None yet.</p>;
  return (
    <Scroll>
      <table id={props.id}>
        <thead>
          <tr>
            {props.withPlanClass ? <th>Plan class</th> : null}
            <th>Processor</th>
            <th class="num">Scale</th>
            <th class="num">Recent credit</th>
            <th class="num">Projects</th>
            <th class="num">Versions</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr>
              {props.withPlanClass ? <td>{r.plan_class}</td> : null}
              <td>{r.proc_type}</td>
              <td class="num">
                <Num name="scale" value={r.scale} text={formatStatistic(r.scale)} />
              </td>
              <td class="num">
                <Num name="recent_credit" value={r.recent_credit} text={formatRate(r.recent_credit)} />
              </td>
              <td class="num">{formatCount(r.nprojects)}</td>
              <td class="num">{formatCount(r.nversions)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

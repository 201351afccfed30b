/**
 * A user's account-manager credit on their project page: what the BOINC client estimated for
 * the user's hosts (as reported to an account manager such as Science United) and the part
 * the project's granted credit confirmed (the daily reconciliation).
 */
import type { LinkedAmCredit } from "../db/am-history";
import { formatCount, formatCredit, formatStatistic } from "./format";
import { Num, Scroll } from "./parts";

export function AmCreditTable(props: { rows: readonly LinkedAmCredit[]; days: number }) {
  return (
    <>
      <h2>Account-manager credit</h2>
      <p class="muted">
        {`Over the last ${props.days} days, for this user's hosts that the project linked to an account manager's hosts: ` +
          "the credit the BOINC client estimated, and the part the credit granted here confirmed (reconciled daily; " +
          "the newest days wait for validation)."}
      </p>
      <Scroll>
        <table id="am-credit">
          <thead>
            <tr>
              <th>Account manager</th>
              <th class="num">Hosts</th>
              <th class="num">Estimated</th>
              <th class="num">Confirmed</th>
              <th class="num">Factor</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr data-am={r.slug}>
                <td class="name">{r.name}</td>
                <td class="num">{formatCount(r.hosts)}</td>
                <td class="num">
                  <Num name="estimated" value={r.estimated} text={formatCredit(r.estimated)} />
                </td>
                <td class="num">
                  {r.confirmed === null ? (
                    <span class="muted">not yet</span>
                  ) : (
                    <Num name="confirmed" value={r.confirmed} text={formatCredit(r.confirmed)} />
                  )}
                </td>
                <td class="num">{r.confirmed === null || r.estimated <= 0 ? "–" : formatStatistic(r.confirmed / r.estimated)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </>
  );
}

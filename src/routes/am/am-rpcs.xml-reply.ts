/**
 * The accounting part of an `<acct_mgr_reply>`: one `<account>` per project of the host, with
 * the user's estimated credit for it and the host's booked lifetime totals, for the account
 * manager to merge into its own `<account>` elements (it adds the authenticator and the URL
 * signature), so that a re-installed client starts from them instead of zero.
 */
import type { HostAccount } from "../../db/am-accounts";
import { element } from "../../http/xml";

export function accountsFragment(accounts: readonly HostAccount[]): string {
  const lines = accounts.flatMap((a) => [
    "<account>",
    `   ${element("url", a.masterUrl)}`,
    `   ${element("user_total_ec", a.userTotalEc)}`,
    `   ${element("user_avg_ec", a.userAvgEc)}`,
    `   ${element("cpu_ec", a.cpu_ec)}`,
    `   ${element("cpu_time", a.cpu_time)}`,
    `   ${element("gpu_ec", a.gpu_ec)}`,
    `   ${element("gpu_time", a.gpu_time)}`,
    `   ${element("njobs_success", a.njobs_success)}`,
    `   ${element("njobs_error", a.njobs_error)}`,
    "</account>",
  ]);
  return lines.join("\n") + (lines.length > 0 ? "\n" : "");
}

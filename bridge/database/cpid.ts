/**
 * BOINC's exported cross-project ids, computed here so that no email address leaves the
 * project's database: a user's cpid is md5(cross_project_id + email_addr), a host's is
 * md5(host_cpid + its owner's email_addr), as BOINC's db_dump writes them.
 */
import { createHash } from "node:crypto";

const md5 = (text: string) => createHash("md5").update(text, "utf8").digest("hex");

export function userCpid(crossProjectId: string, emailAddr: string): string {
  return md5(crossProjectId + emailAddr);
}

export function hostCpid(hostCpidColumn: string, ownerEmailAddr: string): string {
  return md5(hostCpidColumn + ownerEmailAddr);
}

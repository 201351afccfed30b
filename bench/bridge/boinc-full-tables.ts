/**
 * What a real BOINC project's tables have beyond the columns the bridge tests declare
 * (test/bridge/boinc-schema.ts), for the workloads shaped like the measurements made against
 * BOINC's own schema: the secondary indexes BOINC's server adds to result, host, user and team
 * (several on the credit columns the write-back updates, none on result.mod_time, which the
 * bridge reads by), and the XML and stderr text a result row carries, so that a scan of the
 * result table reads rows as wide as a project's. Column and index names are BOINC's.
 */
import type mysql from "mysql2/promise";

const INDEXES = `
  ALTER TABLE result ADD UNIQUE KEY (name), ADD INDEX ind_res_st (server_state), ADD INDEX res_app_state (appid, server_state),
    ADD INDEX res_filedel (file_delete_state), ADD INDEX res_userid_id (userid, id), ADD INDEX res_userid_val (userid, validate_state),
    ADD INDEX res_hostid_id (hostid, id), ADD INDEX res_wu_user (workunitid, userid);
  ALTER TABLE host ADD INDEX host_user (userid), ADD INDEX host_avg (expavg_credit), ADD INDEX host_tot (total_credit);
  ALTER TABLE user ADD UNIQUE KEY (email_addr), ADD INDEX ind_tid (teamid), ADD INDEX user_name (name),
    ADD INDEX user_tot (total_credit), ADD INDEX user_avg (expavg_credit);
  ALTER TABLE team ADD UNIQUE KEY (name), ADD INDEX team_avg (expavg_credit), ADD INDEX team_tot (total_credit);
  ALTER TABLE workunit ADD UNIQUE KEY (name), ADD INDEX wu_val (appid, need_validate), ADD INDEX wu_timeout (transition_time);
  ALTER TABLE credit_user ADD INDEX cu_total (appid, total), ADD INDEX cu_avg (appid, expavg);
  ALTER TABLE credit_team ADD INDEX ct_total (appid, total), ADD INDEX ct_avg (appid, expavg);`;

/**
 * Widens a loaded synthetic project to BOINC's tables: about 1 KB of text per result (the input
 * template, the client's upload report and its stderr), each result named, then the indexes
 * (mod_time kept: it is what the bridge reads by).
 */
export async function widenToBoincTables(conn: mysql.Connection): Promise<void> {
  await conn.query(`ALTER TABLE result ADD COLUMN xml_doc_in blob, ADD COLUMN xml_doc_out blob, ADD COLUMN stderr_out blob;
    UPDATE result SET name = CONCAT('wu', workunitid, '_', id), xml_doc_in = REPEAT('<file_ref/>', 18),
      xml_doc_out = REPEAT('<file_info/>', 25), stderr_out = REPEAT('<stderr_txt/>', 38), mod_time = mod_time;
    ${INDEXES}`);
}

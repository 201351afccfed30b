/**
 * The bridge's own tables in the BOINC database, kept by --write-back (docs/bridge.md, "Exactly
 * once"): one row per result written back, and per project the switch point.
 */
/** One row per result whose credit the bridge wrote: inserted in the same transaction as the credit. */
export const WRITEBACK_TABLE = "cobblestone_writeback";
/** Per project, the switch point: results validated before it keep the credit BOINC granted them. */
export const SWITCH_TABLE = "cobblestone_writeback_switch";
export const CREATE_SWITCH_TABLE = `CREATE TABLE ${SWITCH_TABLE} (
  project VARCHAR(64) NOT NULL PRIMARY KEY,
  switch_time BIGINT NOT NULL,
  set_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB`;
export const CREATE_TABLE = `CREATE TABLE ${WRITEBACK_TABLE} (
  result_id BIGINT NOT NULL PRIMARY KEY,
  workunit_id BIGINT NOT NULL,
  credit DOUBLE NOT NULL,
  grant_time DOUBLE NOT NULL,
  written_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB`;

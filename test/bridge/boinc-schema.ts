/**
 * The BOINC tables the bridge reads, with BOINC's column names and types (a subset of each
 * table's columns: the ones the bridge reads and a few neighbours), as a project's
 * database has them. mod_time is BOINC's auto-updated TIMESTAMP.
 */
export const BOINC_TABLES = `
create table platform (
  id integer not null auto_increment, create_time integer not null default 0,
  name varchar(254) not null, user_friendly_name varchar(254) not null default '',
  deprecated tinyint not null default 0, primary key (id)) engine=InnoDB;
create table app (
  id integer not null auto_increment, create_time integer not null default 0,
  name varchar(254) not null, min_version integer not null default 0, deprecated smallint not null default 0,
  user_friendly_name varchar(254) not null default '', homogeneous_redundancy smallint not null default 0,
  weight double not null default 1, beta smallint not null default 0, target_nresults smallint not null default 0,
  min_avg_pfc double not null default 1, host_scale_check tinyint not null default 0,
  primary key (id)) engine=InnoDB;
create table app_version (
  id integer not null auto_increment, create_time integer not null default 0, appid integer not null,
  version_num integer not null, platformid integer not null, xml_doc mediumblob,
  min_core_version integer not null default 0, max_core_version integer not null default 0,
  deprecated tinyint not null default 0, plan_class varchar(254) not null default '',
  pfc_n double not null default 0, pfc_avg double not null default 0, pfc_scale double not null default 0,
  expavg_credit double not null default 0, expavg_time double not null default 0,
  primary key (id)) engine=InnoDB;
create table user (
  id integer not null auto_increment, create_time integer not null, email_addr varchar(254) not null,
  name varchar(254), authenticator varchar(254), country varchar(254),
  total_credit double not null default 0, expavg_credit double not null default 0, expavg_time double not null default 0,
  teamid integer not null default 0, cross_project_id varchar(254) not null, passwd_hash varchar(254) not null default '',
  primary key (id)) engine=InnoDB;
create table team (
  id integer not null auto_increment, create_time integer not null, userid integer not null default 0,
  name varchar(254) not null, name_lc varchar(254), url varchar(254), type integer not null default 1,
  total_credit double not null default 0, expavg_credit double not null default 0, expavg_time double not null default 0,
  primary key (id)) engine=InnoDB;
create table host (
  id integer not null auto_increment, create_time integer not null, userid integer not null,
  rpc_seqno integer not null default 0, rpc_time integer not null default 0,
  total_credit double not null default 0, expavg_credit double not null default 0, expavg_time double not null default 0,
  domain_name varchar(254), p_ncpus integer not null default 1, p_fpops double not null default 0,
  host_cpid varchar(254), primary key (id)) engine=InnoDB;
create table workunit (
  id integer not null auto_increment, create_time integer not null default 0, appid integer not null,
  name varchar(254) not null, rsc_fpops_est double not null, rsc_fpops_bound double not null,
  rsc_memory_bound double not null default 0, rsc_disk_bound double not null default 0,
  need_validate smallint not null default 0, canonical_resultid integer not null default 0,
  canonical_credit double not null default 0, transition_time integer not null default 0,
  delay_bound integer not null default 0, error_mask integer not null default 0,
  min_quorum integer not null default 1, target_nresults integer not null default 1,
  mod_time timestamp default current_timestamp on update current_timestamp,
  primary key (id)) engine=InnoDB;
create table result (
  id integer not null auto_increment, create_time integer not null default 0, workunitid integer not null,
  server_state integer not null default 5, outcome integer not null default 0, client_state integer not null default 0,
  hostid integer not null, userid integer not null, report_deadline integer not null default 0,
  sent_time integer not null, received_time integer not null, name varchar(254) not null default '',
  cpu_time double not null, file_delete_state integer not null default 0, validate_state integer not null,
  claimed_credit double not null default 0, granted_credit double not null default 0,
  appid integer not null default 0, exit_status integer not null default 0, teamid integer not null default 0,
  mod_time timestamp default current_timestamp on update current_timestamp,
  elapsed_time double not null, flops_estimate double not null, app_version_id integer not null,
  runtime_outlier tinyint not null default 0,
  primary key (id), index res_wuid (workunitid)) engine=InnoDB;
create table credit_user (
  userid integer not null, appid integer not null, njobs integer not null, total double not null,
  expavg double not null, expavg_time double not null, credit_type integer not null,
  primary key (userid, appid, credit_type)) engine=InnoDB;
create table credit_team (
  teamid integer not null, appid integer not null, njobs integer not null, total double not null,
  expavg double not null, expavg_time double not null, credit_type integer not null,
  primary key (teamid, appid, credit_type)) engine=InnoDB;
create table msg_from_host (
  id integer not null auto_increment, create_time integer not null, hostid integer not null,
  variety varchar(254) not null, handled smallint not null, xml mediumtext,
  primary key (id), index message_handled (handled)) engine=InnoDB;
`;

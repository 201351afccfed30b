CREATE TABLE `kv_marks` (
	`id` integer PRIMARY KEY NOT NULL,
	`project_id` integer NOT NULL,
	`subjects` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- hand-written: the pending marks move to the queue (one row per project) before kv_dirty goes.
INSERT INTO `kv_marks` (`project_id`, `subjects`) SELECT `project_id`, json_group_array(json_array(`subject`, `entity_id`)) FROM `kv_dirty` GROUP BY `project_id`;--> statement-breakpoint
DROP TABLE `kv_dirty`;--> statement-breakpoint
-- hand-written: tables written on every pass are rebuilt WITHOUT ROWID, so a row insert is one
-- write (the row in its primary-key b-tree) instead of two (the rowid b-tree and the key's index).
-- drizzle-kit cannot express WITHOUT ROWID: a later migration that rebuilds one of these tables
-- must keep it (schema.ts says so beside each table).
CREATE TABLE `__new_results` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`workunit_id` integer,
	`app_id` integer NOT NULL,
	`host_id` integer NOT NULL,
	`app_version_id` integer NOT NULL,
	`outcome` text NOT NULL,
	`validate_state` text,
	`granted_credit` real DEFAULT 0 NOT NULL,
	`claimed_credit` real,
	`pfc_mode` text,
	`fingerprint` text NOT NULL,
	`decided_at` real NOT NULL,
	`boinc_credit` real,
	`fair_credit` real,
	`fair_rule` text,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_results` (`project_id`, `id`, `workunit_id`, `app_id`, `host_id`, `app_version_id`, `outcome`, `validate_state`, `granted_credit`, `claimed_credit`, `pfc_mode`, `fingerprint`, `decided_at`, `boinc_credit`, `fair_credit`, `fair_rule`) SELECT `project_id`, `id`, `workunit_id`, `app_id`, `host_id`, `app_version_id`, `outcome`, `validate_state`, `granted_credit`, `claimed_credit`, `pfc_mode`, `fingerprint`, `decided_at`, `boinc_credit`, `fair_credit`, `fair_rule` FROM `results`;--> statement-breakpoint
DROP TABLE `results`;--> statement-breakpoint
ALTER TABLE `__new_results` RENAME TO `results`;--> statement-breakpoint
CREATE TABLE `__new_workunits` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`credit` real NOT NULL,
	`canonical_result_id` integer NOT NULL,
	`credited_at` real NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_workunits` (`project_id`, `id`, `app_id`, `credit`, `canonical_result_id`, `credited_at`) SELECT `project_id`, `id`, `app_id`, `credit`, `canonical_result_id`, `credited_at` FROM `workunits`;--> statement-breakpoint
DROP TABLE `workunits`;--> statement-breakpoint
ALTER TABLE `__new_workunits` RENAME TO `workunits`;--> statement-breakpoint
CREATE TABLE `__new_credit_history` (
	`project_id` integer NOT NULL,
	`subject` text NOT NULL,
	`entity_id` integer NOT NULL,
	`day` integer NOT NULL,
	`credit` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `subject`, `entity_id`, `day`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_credit_history` (`project_id`, `subject`, `entity_id`, `day`, `credit`, `expavg_credit`, `expavg_time`) SELECT `project_id`, `subject`, `entity_id`, `day`, `credit`, `expavg_credit`, `expavg_time` FROM `credit_history`;--> statement-breakpoint
DROP TABLE `credit_history`;--> statement-breakpoint
ALTER TABLE `__new_credit_history` RENAME TO `credit_history`;--> statement-breakpoint
CREATE TABLE `__new_host_app_versions` (
	`project_id` integer NOT NULL,
	`host_id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`app_version_id` integer NOT NULL,
	`pfc_n` real DEFAULT 0 NOT NULL,
	`pfc_avg` real DEFAULT 0 NOT NULL,
	`et_n` real DEFAULT 0 NOT NULL,
	`et_avg` real DEFAULT 0 NOT NULL,
	`et_var` real DEFAULT 0 NOT NULL,
	`et_q` real DEFAULT 0 NOT NULL,
	`turnaround_n` real DEFAULT 0 NOT NULL,
	`turnaround_avg` real DEFAULT 0 NOT NULL,
	`turnaround_var` real DEFAULT 0 NOT NULL,
	`turnaround_q` real DEFAULT 0 NOT NULL,
	`consecutive_valid` integer DEFAULT 0 NOT NULL,
	`fair_n` integer DEFAULT 0 NOT NULL,
	`fair_q` real,
	`fair_buf` text,
	`fair_run` integer DEFAULT 0 NOT NULL,
	`fair_err` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `host_id`, `app_id`, `app_version_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_host_app_versions` (`project_id`, `host_id`, `app_id`, `app_version_id`, `pfc_n`, `pfc_avg`, `et_n`, `et_avg`, `et_var`, `et_q`, `turnaround_n`, `turnaround_avg`, `turnaround_var`, `turnaround_q`, `consecutive_valid`, `fair_n`, `fair_q`, `fair_buf`, `fair_run`, `fair_err`) SELECT `project_id`, `host_id`, `app_id`, `app_version_id`, `pfc_n`, `pfc_avg`, `et_n`, `et_avg`, `et_var`, `et_q`, `turnaround_n`, `turnaround_avg`, `turnaround_var`, `turnaround_q`, `consecutive_valid`, `fair_n`, `fair_q`, `fair_buf`, `fair_run`, `fair_err` FROM `host_app_versions`;--> statement-breakpoint
DROP TABLE `host_app_versions`;--> statement-breakpoint
ALTER TABLE `__new_host_app_versions` RENAME TO `host_app_versions`;--> statement-breakpoint
CREATE TABLE `__new_credit_users` (
	`project_id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`njobs` integer DEFAULT 0 NOT NULL,
	`total` real DEFAULT 0 NOT NULL,
	`expavg` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`project_id`, `user_id`, `app_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_credit_users` (`project_id`, `app_id`, `njobs`, `total`, `expavg`, `expavg_time`, `user_id`) SELECT `project_id`, `app_id`, `njobs`, `total`, `expavg`, `expavg_time`, `user_id` FROM `credit_users`;--> statement-breakpoint
DROP TABLE `credit_users`;--> statement-breakpoint
ALTER TABLE `__new_credit_users` RENAME TO `credit_users`;--> statement-breakpoint
CREATE TABLE `__new_credit_teams` (
	`project_id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`njobs` integer DEFAULT 0 NOT NULL,
	`total` real DEFAULT 0 NOT NULL,
	`expavg` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	`team_id` integer NOT NULL,
	PRIMARY KEY(`project_id`, `team_id`, `app_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_credit_teams` (`project_id`, `app_id`, `njobs`, `total`, `expavg`, `expavg_time`, `team_id`) SELECT `project_id`, `app_id`, `njobs`, `total`, `expavg`, `expavg_time`, `team_id` FROM `credit_teams`;--> statement-breakpoint
DROP TABLE `credit_teams`;--> statement-breakpoint
ALTER TABLE `__new_credit_teams` RENAME TO `credit_teams`;

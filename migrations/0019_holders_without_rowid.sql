-- hand-written (issue 23, rows written per result): hosts, users and teams are rebuilt WITHOUT ROWID,
-- as 0010 did for the tables written on every pass. A rowid table keeps its primary key in a second
-- b-tree, so a new account cost a row for the table, one for the key and one for the count trigger;
-- now it costs the row and the trigger. drizzle-kit cannot express WITHOUT ROWID: a later migration
-- that rebuilds one of these tables must keep it. Indexes and the count triggers are recreated.
CREATE TABLE `__new_hosts` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text,
	`create_time` real NOT NULL,
	`total_credit` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	`user_id` integer DEFAULT 0 NOT NULL,
	`host_cpid` text, `rac_rank` real GENERATED ALWAYS AS (CASE WHEN expavg_credit > 0 THEN ln(expavg_credit) + expavg_time * 0.6931471805599453 / 604800.0 ELSE -1e+308 END) VIRTUAL, `p_fpops` real, `day_credit` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_hosts`("project_id", "id", "name", "create_time", "total_credit", "expavg_credit", "expavg_time", "user_id", "host_cpid", "p_fpops", "day_credit") SELECT "project_id", "id", "name", "create_time", "total_credit", "expavg_credit", "expavg_time", "user_id", "host_cpid", "p_fpops", "day_credit" FROM `hosts`;
--> statement-breakpoint
DROP TABLE `hosts`;
--> statement-breakpoint
ALTER TABLE `__new_hosts` RENAME TO `hosts`;
--> statement-breakpoint
CREATE TRIGGER `hosts_count` AFTER INSERT ON `hosts` BEGIN UPDATE `projects` SET `host_count` = `host_count` + 1 WHERE `id` = NEW.`project_id`; END;
--> statement-breakpoint
CREATE INDEX `hosts_host_cpid` ON `hosts` (`host_cpid`) WHERE host_cpid IS NOT NULL;
--> statement-breakpoint
CREATE TABLE `__new_users` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text,
	`create_time` real NOT NULL,
	`total_credit` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	`team_id` integer DEFAULT 0 NOT NULL,
	`cpid` text, `stats_export` integer DEFAULT true NOT NULL, `rac_rank` real GENERATED ALWAYS AS (CASE WHEN expavg_credit > 0 THEN ln(expavg_credit) + expavg_time * 0.6931471805599453 / 604800.0 ELSE -1e+308 END) VIRTUAL, `day_credit` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_users`("project_id", "id", "name", "create_time", "total_credit", "expavg_credit", "expavg_time", "team_id", "cpid", "stats_export", "day_credit") SELECT "project_id", "id", "name", "create_time", "total_credit", "expavg_credit", "expavg_time", "team_id", "cpid", "stats_export", "day_credit" FROM `users`;
--> statement-breakpoint
DROP TABLE `users`;
--> statement-breakpoint
ALTER TABLE `__new_users` RENAME TO `users`;
--> statement-breakpoint
CREATE TRIGGER `users_count` AFTER INSERT ON `users` BEGIN UPDATE `projects` SET `user_count` = `user_count` + 1 WHERE `id` = NEW.`project_id`; END;
--> statement-breakpoint
CREATE INDEX `users_cpid` ON `users` (`cpid`) WHERE cpid IS NOT NULL;
--> statement-breakpoint
CREATE TABLE `__new_teams` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text,
	`create_time` real NOT NULL,
	`total_credit` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL, `rac_rank` real GENERATED ALWAYS AS (CASE WHEN expavg_credit > 0 THEN ln(expavg_credit) + expavg_time * 0.6931471805599453 / 604800.0 ELSE -1e+308 END) VIRTUAL, `day_credit` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_teams`("project_id", "id", "name", "create_time", "total_credit", "expavg_credit", "expavg_time", "day_credit") SELECT "project_id", "id", "name", "create_time", "total_credit", "expavg_credit", "expavg_time", "day_credit" FROM `teams`;
--> statement-breakpoint
DROP TABLE `teams`;
--> statement-breakpoint
ALTER TABLE `__new_teams` RENAME TO `teams`;
--> statement-breakpoint
CREATE TRIGGER `teams_count` AFTER INSERT ON `teams` BEGIN UPDATE `projects` SET `team_count` = `team_count` + 1 WHERE `id` = NEW.`project_id`; END;

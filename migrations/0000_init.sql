CREATE TABLE `app_versions` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`platform` text NOT NULL,
	`plan_class` text DEFAULT '' NOT NULL,
	`version_num` integer NOT NULL,
	`deprecated` integer DEFAULT false NOT NULL,
	`pfc_n` real DEFAULT 0 NOT NULL,
	`pfc_avg` real DEFAULT 0 NOT NULL,
	`pfc_scale` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `apps` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text NOT NULL,
	`min_avg_pfc` real DEFAULT 1 NOT NULL,
	`host_scale_check` integer DEFAULT false NOT NULL,
	`target_nresults` integer DEFAULT 0 NOT NULL,
	`credit_mode` text DEFAULT 'adaptive' NOT NULL,
	`max_granted_credit` real DEFAULT 73000000 NOT NULL,
	`deprecated` integer DEFAULT false NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `apps_name` ON `apps` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `credit_teams` (
	`project_id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`njobs` integer DEFAULT 0 NOT NULL,
	`total` real DEFAULT 0 NOT NULL,
	`expavg` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	`team_id` integer NOT NULL,
	PRIMARY KEY(`project_id`, `team_id`, `app_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `credit_users` (
	`project_id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`njobs` integer DEFAULT 0 NOT NULL,
	`total` real DEFAULT 0 NOT NULL,
	`expavg` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`project_id`, `user_id`, `app_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `host_app_versions` (
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
	PRIMARY KEY(`project_id`, `host_id`, `app_id`, `app_version_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `hosts` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text,
	`create_time` real NOT NULL,
	`total_credit` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	`user_id` integer DEFAULT 0 NOT NULL,
	`host_cpid` text,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`url` text,
	`token_hash` text NOT NULL,
	`created_at` real NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_slug_unique` ON `projects` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `projects_token_hash_unique` ON `projects` (`token_hash`);--> statement-breakpoint
CREATE TABLE `results` (
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
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `teams` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text,
	`create_time` real NOT NULL,
	`total_credit` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `users` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text,
	`create_time` real NOT NULL,
	`total_credit` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	`team_id` integer DEFAULT 0 NOT NULL,
	`cpid` text,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `workunits` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`credit` real NOT NULL,
	`canonical_result_id` integer NOT NULL,
	`credited_at` real NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);

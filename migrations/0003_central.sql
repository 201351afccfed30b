CREATE TABLE `central_contributions` (
	`contributor_id` integer NOT NULL,
	`project` text NOT NULL,
	`app_version_id` integer NOT NULL,
	`app` text NOT NULL,
	`platform` text NOT NULL,
	`plan_class` text NOT NULL,
	`version_num` integer NOT NULL,
	`pfc_n` real NOT NULL,
	`pfc_avg` real NOT NULL,
	`pfc_scale` real NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	`reported_at` real NOT NULL,
	PRIMARY KEY(`contributor_id`, `project`, `app_version_id`),
	FOREIGN KEY (`contributor_id`) REFERENCES `central_contributors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `central_contributors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`url` text,
	`token_hash` text NOT NULL,
	`created_at` real NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `central_contributors_token_hash_unique` ON `central_contributors` (`token_hash`);--> statement-breakpoint
CREATE TABLE `plan_class_scale_versions` (
	`version` real PRIMARY KEY NOT NULL,
	`nsources` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `plan_class_scales` (
	`version` real NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`proc_type` text NOT NULL,
	`scale` real NOT NULL,
	`recent_credit` real NOT NULL,
	`nprojects` integer NOT NULL,
	`nversions` integer NOT NULL,
	PRIMARY KEY(`version`, `kind`, `name`),
	FOREIGN KEY (`version`) REFERENCES `plan_class_scale_versions`(`version`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `apps` ADD `gpu_only_scale` text DEFAULT 'boinc' NOT NULL;--> statement-breakpoint
ALTER TABLE `apps` ADD `cross_project_version` real;--> statement-breakpoint
ALTER TABLE `users` ADD `stats_export` integer DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX `users_cpid` ON `users` (`cpid`);--> statement-breakpoint
CREATE INDEX `hosts_host_cpid` ON `hosts` (`host_cpid`);
CREATE TABLE `account_managers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` real NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `account_managers_slug_unique` ON `account_managers` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `account_managers_token_hash_unique` ON `account_managers` (`token_hash`);--> statement-breakpoint
CREATE TABLE `am_daily` (
	`am_id` integer NOT NULL,
	`subject` text NOT NULL,
	`entity_id` integer NOT NULL,
	`url` text NOT NULL,
	`day` integer NOT NULL,
	`user_id` integer DEFAULT 0 NOT NULL,
	`ec` real DEFAULT 0 NOT NULL,
	`claimed_ec` real DEFAULT 0 NOT NULL,
	`cpu_time` real DEFAULT 0 NOT NULL,
	`gpu_time` real DEFAULT 0 NOT NULL,
	`njobs_success` real DEFAULT 0 NOT NULL,
	`njobs_error` real DEFAULT 0 NOT NULL,
	`total_ec` real DEFAULT 0 NOT NULL,
	`confirmed_ec` real,
	`factor` real,
	`window_granted` real,
	`window_estimated` real,
	PRIMARY KEY(`am_id`, `subject`, `entity_id`, `url`, `day`),
	FOREIGN KEY (`am_id`) REFERENCES `account_managers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `am_host_links` (
	`project_id` integer NOT NULL,
	`host_id` integer NOT NULL,
	`am_id` integer NOT NULL,
	`am_host_id` integer NOT NULL,
	PRIMARY KEY(`project_id`, `host_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`am_id`) REFERENCES `account_managers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `am_host_links_am_host` ON `am_host_links` (`am_id`,`am_host_id`);--> statement-breakpoint
CREATE TABLE `am_host_projects` (
	`am_id` integer NOT NULL,
	`host_id` integer NOT NULL,
	`url` text NOT NULL,
	`last_time` real NOT NULL,
	`cpu_ec` real NOT NULL,
	`cpu_time` real NOT NULL,
	`gpu_ec` real NOT NULL,
	`gpu_time` real NOT NULL,
	`njobs_success` real NOT NULL,
	`njobs_error` real NOT NULL,
	PRIMARY KEY(`am_id`, `host_id`, `url`),
	FOREIGN KEY (`am_id`) REFERENCES `account_managers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `am_rpcs` (
	`am_id` integer NOT NULL,
	`host_id` integer NOT NULL,
	`seq` integer NOT NULL,
	`rpc_time` real NOT NULL,
	`user_id` integer NOT NULL,
	`fingerprint` text NOT NULL,
	`outcome` text NOT NULL,
	PRIMARY KEY(`am_id`, `host_id`, `seq`),
	FOREIGN KEY (`am_id`) REFERENCES `account_managers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `am_rpcs_time` ON `am_rpcs` (`am_id`,`host_id`,`rpc_time`);
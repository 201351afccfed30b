CREATE TABLE `credit_history` (
	`project_id` integer NOT NULL,
	`subject` text NOT NULL,
	`entity_id` integer NOT NULL,
	`day` integer NOT NULL,
	`credit` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `subject`, `entity_id`, `day`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `kv_dirty` (
	`project_id` integer NOT NULL,
	`subject` text NOT NULL,
	`entity_id` integer NOT NULL,
	`mark` integer NOT NULL,
	PRIMARY KEY(`project_id`, `subject`, `entity_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `projects` ADD `total_credit` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `expavg_credit` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `expavg_time` real DEFAULT 0 NOT NULL;
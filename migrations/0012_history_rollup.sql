CREATE TABLE `credit_history_monthly` (
	`project_id` integer NOT NULL,
	`subject` text NOT NULL,
	`entity_id` integer NOT NULL,
	`month` integer NOT NULL,
	`credit` real DEFAULT 0 NOT NULL,
	`expavg_credit` real DEFAULT 0 NOT NULL,
	`expavg_time` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `subject`, `entity_id`, `month`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `projects` ADD `daily_history_days` integer DEFAULT 730 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `history_monthly_before` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `history_rolled_before` integer DEFAULT 0 NOT NULL;
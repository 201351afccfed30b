CREATE TABLE `app_credit_queue` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`now` real NOT NULL,
	`runs` text NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `history_queue` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`entries` text NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `hosts` ADD `day_credit` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `day_credit` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `queue_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `app_credit_folded_through` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `history_databases` text;--> statement-breakpoint
ALTER TABLE `projects` ADD `history_moved_through` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `teams` ADD `day_credit` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `day_credit` real DEFAULT 0 NOT NULL;

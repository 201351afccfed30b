ALTER TABLE `projects` ADD `result_retention_days` integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `purged_before` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `database` text;
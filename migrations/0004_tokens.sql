CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer,
	`at` real NOT NULL,
	`actor` text NOT NULL,
	`method` text NOT NULL,
	`route` text NOT NULL,
	`target` text NOT NULL,
	`status` integer NOT NULL,
	`request_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_project` ON `audit_log` (`project_id`,`id`);--> statement-breakpoint
CREATE TABLE `kv_refresh_fence` (
	`id` integer PRIMARY KEY NOT NULL,
	`taken_at` real NOT NULL
);
--> statement-breakpoint
CREATE TABLE `project_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` real NOT NULL,
	`expires_at` real,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_tokens_token_hash_unique` ON `project_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `project_tokens_project` ON `project_tokens` (`project_id`);--> statement-breakpoint
-- Existing projects keep working: each project's token moves to project_tokens (hand-added).
INSERT INTO `project_tokens` (`project_id`, `token_hash`, `created_at`, `expires_at`) SELECT `id`, `token_hash`, `created_at`, NULL FROM `projects`;--> statement-breakpoint
DROP INDEX `projects_token_hash_unique`;--> statement-breakpoint
ALTER TABLE `projects` DROP COLUMN `token_hash`;
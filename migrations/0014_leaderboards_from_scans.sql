CREATE TABLE `leaderboard_publications` (
	`project_id` integer NOT NULL,
	`kind` text NOT NULL,
	`by` text NOT NULL,
	`next_page` integer DEFAULT 0 NOT NULL,
	`published_at` real DEFAULT 0 NOT NULL,
	`holders` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `kind`, `by`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
DROP INDEX `hosts_rac_rank`;--> statement-breakpoint
DROP INDEX `hosts_total_credit`;--> statement-breakpoint
DROP INDEX `teams_rac_rank`;--> statement-breakpoint
DROP INDEX `teams_total_credit`;--> statement-breakpoint
DROP INDEX `users_rac_rank`;--> statement-breakpoint
DROP INDEX `users_total_credit`;
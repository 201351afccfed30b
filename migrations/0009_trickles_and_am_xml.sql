CREATE TABLE `trickles` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`host_id` integer NOT NULL,
	`result_id` integer,
	`fingerprint` text NOT NULL,
	`credit` real NOT NULL,
	`runtime` real NOT NULL,
	`runtime_cut` integer NOT NULL,
	`flops` real NOT NULL,
	`flops_source` text NOT NULL,
	`granted_at` real NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `am_host_projects` ADD `master_url` text;--> statement-breakpoint
ALTER TABLE `apps` ADD `trickle_max_runtime` real;--> statement-breakpoint
ALTER TABLE `hosts` ADD `p_fpops` real;--> statement-breakpoint
ALTER TABLE `projects` ADD `fpops_p50` real;--> statement-breakpoint
ALTER TABLE `projects` ADD `fpops_p95` real;--> statement-breakpoint
ALTER TABLE `projects` ADD `fpops_percentiles_at` real;
ALTER TABLE `host_app_versions` ADD `neutral_period` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `neutral_credit` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `neutral_device_seconds` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `neutral_results` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `neutral_prev_credit` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `neutral_prev_device_seconds` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `neutral_prev_results` integer DEFAULT 0 NOT NULL;
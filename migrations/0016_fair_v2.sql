ALTER TABLE `app_versions` ADD `fair_fv` real DEFAULT 0.020000000000000018 NOT NULL;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `fair_f` real;
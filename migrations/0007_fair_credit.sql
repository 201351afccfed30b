ALTER TABLE `app_versions` ADD `fair_n` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `app_versions` ADD `fair_level` real;--> statement-breakpoint
ALTER TABLE `app_versions` ADD `fair_buf` text;--> statement-breakpoint
ALTER TABLE `app_versions` ADD `fair_t_hi` real DEFAULT 1.0986122886681096 NOT NULL;--> statement-breakpoint
ALTER TABLE `app_versions` ADD `fair_t_lo` real DEFAULT -1.0986122886681098 NOT NULL;--> statement-breakpoint
ALTER TABLE `app_versions` ADD `fair_zn` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `app_versions` ADD `fair_scale` real;--> statement-breakpoint
ALTER TABLE `apps` ADD `credit_policy` text DEFAULT 'boinc' NOT NULL;--> statement-breakpoint
ALTER TABLE `apps` ADD `fair_level` real;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `fair_n` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `fair_q` real;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `fair_buf` text;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `fair_run` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `fair_err` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `results` ADD `boinc_credit` real;--> statement-breakpoint
ALTER TABLE `results` ADD `fair_credit` real;--> statement-breakpoint
ALTER TABLE `results` ADD `fair_rule` text;
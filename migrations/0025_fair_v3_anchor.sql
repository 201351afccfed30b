-- Fair policy version 3 (docs/spec/fair-policy.md#migration-from-version-2): every host x version row stored
-- before it is a founder (DEFAULT true), no app is anchored and no version sealed or scaled by it;
-- the next rescale anchors and seals the apps that are mature. ADD COLUMN rewrites no row.
ALTER TABLE `app_versions` ADD `fair_own_scale` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `app_versions` ADD `fair_sealed` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `apps` ADD `fair_s_ref` real;--> statement-breakpoint
ALTER TABLE `apps` ADD `fair_s_raw` real;--> statement-breakpoint
ALTER TABLE `apps` ADD `fair_anchored_at` real;--> statement-breakpoint
ALTER TABLE `apps` ADD `fair_rebased_at` real;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `reason` text;--> statement-breakpoint
ALTER TABLE `host_app_versions` ADD `fair_founder` integer DEFAULT true NOT NULL;
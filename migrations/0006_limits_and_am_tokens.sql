ALTER TABLE `account_managers` ADD `previous_token_hash` text;--> statement-breakpoint
ALTER TABLE `account_managers` ADD `previous_expires_at` real;--> statement-breakpoint
ALTER TABLE `account_managers` ADD `revoked_at` real;--> statement-breakpoint
CREATE INDEX `account_managers_previous_token` ON `account_managers` (`previous_token_hash`);--> statement-breakpoint
ALTER TABLE `projects` ADD `rate_limit_tier` text DEFAULT 'standard' NOT NULL;
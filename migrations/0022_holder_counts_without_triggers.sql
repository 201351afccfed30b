-- Holder counts are kept by the batches that insert holders (src/db/holder-counts.ts): one
-- project row written per batch instead of one per new host, user or team.
DROP TRIGGER IF EXISTS `hosts_count`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `users_count`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `teams_count`;

-- A user's credit rides on the host its grant writes anyway (docs/storage.md#owners-credit-rides-on-a-host): the
-- host's owner_* columns carry the user's credit columns after its last grant there, numbered by credit_seq, and the
-- user's row is written only when that host is not one of its carriers yet. ADD COLUMN rewrites no row; every stored
-- user keeps its credit in its row (credit_seq 0, no carriers) until its next grant.
ALTER TABLE `hosts` ADD `owner_credit_seq` integer;--> statement-breakpoint
ALTER TABLE `hosts` ADD `owner_total_credit` real;--> statement-breakpoint
ALTER TABLE `hosts` ADD `owner_expavg_credit` real;--> statement-breakpoint
ALTER TABLE `hosts` ADD `owner_expavg_time` real;--> statement-breakpoint
ALTER TABLE `hosts` ADD `owner_day_credit` real;--> statement-breakpoint
ALTER TABLE `users` ADD `credit_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `carriers` text;--> statement-breakpoint
-- Every user as its credit stands: the newest of its row and what its carriers hold for it (a carrier whose owner
-- changed since holds nothing: the owner change saves the old owner's credit first and clears owner_credit_seq).
-- CROSS JOIN: each carrier seeks its host by the key; a plain join scanned the project's hosts for each user. The CASE:
-- D1 counts a row read for the subquery of a user without carriers too (40 rows for 20 users; 20 with it).
CREATE VIEW `users_now` AS
SELECT u.`project_id`, u.`id`, u.`name`, u.`create_time`,
  coalesce(c.`owner_total_credit`, u.`total_credit`) AS `total_credit`,
  coalesce(c.`owner_expavg_credit`, u.`expavg_credit`) AS `expavg_credit`,
  coalesce(c.`owner_expavg_time`, u.`expavg_time`) AS `expavg_time`,
  CASE WHEN coalesce(c.`owner_expavg_credit`, u.`expavg_credit`) > 0
    THEN ln(coalesce(c.`owner_expavg_credit`, u.`expavg_credit`)) + coalesce(c.`owner_expavg_time`, u.`expavg_time`) * 0.6931471805599453 / 604800.0
    ELSE -1e+308 END AS `rac_rank`,
  coalesce(c.`owner_day_credit`, u.`day_credit`) AS `day_credit`,
  u.`team_id`, u.`cpid`, u.`stats_export`,
  coalesce(c.`owner_credit_seq`, u.`credit_seq`) AS `credit_seq`, u.`carriers`
FROM `users` AS u LEFT JOIN `hosts` AS c ON c.`project_id` = u.`project_id` AND c.`id` = CASE WHEN u.`carriers` IS NOT NULL THEN (
  SELECT h.`id` FROM json_each(u.`carriers`) AS j CROSS JOIN `hosts` AS h ON h.`project_id` = u.`project_id` AND h.`id` = j.value
  WHERE h.`user_id` = u.`id` AND h.`owner_credit_seq` > u.`credit_seq` ORDER BY h.`owner_credit_seq` DESC LIMIT 1) END;

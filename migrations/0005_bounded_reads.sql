ALTER TABLE `hosts` ADD `rac_rank` real GENERATED ALWAYS AS (CASE WHEN expavg_credit > 0 THEN ln(expavg_credit) + expavg_time * 0.6931471805599453 / 604800.0 ELSE -1e+308 END) VIRTUAL;--> statement-breakpoint
CREATE INDEX `hosts_rac_rank` ON `hosts` (`project_id`,"rac_rank" DESC,`id`);--> statement-breakpoint
CREATE INDEX `hosts_total_credit` ON `hosts` (`project_id`,"total_credit" DESC,`id`);--> statement-breakpoint
ALTER TABLE `projects` ADD `host_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `user_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `team_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `teams` ADD `rac_rank` real GENERATED ALWAYS AS (CASE WHEN expavg_credit > 0 THEN ln(expavg_credit) + expavg_time * 0.6931471805599453 / 604800.0 ELSE -1e+308 END) VIRTUAL;--> statement-breakpoint
CREATE INDEX `teams_rac_rank` ON `teams` (`project_id`,"rac_rank" DESC,`id`);--> statement-breakpoint
CREATE INDEX `teams_total_credit` ON `teams` (`project_id`,"total_credit" DESC,`id`);--> statement-breakpoint
ALTER TABLE `users` ADD `rac_rank` real GENERATED ALWAYS AS (CASE WHEN expavg_credit > 0 THEN ln(expavg_credit) + expavg_time * 0.6931471805599453 / 604800.0 ELSE -1e+308 END) VIRTUAL;--> statement-breakpoint
CREATE INDEX `users_rac_rank` ON `users` (`project_id`,"rac_rank" DESC,`id`);--> statement-breakpoint
CREATE INDEX `users_total_credit` ON `users` (`project_id`,"total_credit" DESC,`id`);--> statement-breakpoint
-- hand-written: holder counts kept by triggers (an upsert that updates, or an insert that is
-- ignored, fires no insert trigger), backfilled from the tables as they are.
CREATE TRIGGER `hosts_count` AFTER INSERT ON `hosts` BEGIN UPDATE `projects` SET `host_count` = `host_count` + 1 WHERE `id` = NEW.`project_id`; END;--> statement-breakpoint
CREATE TRIGGER `users_count` AFTER INSERT ON `users` BEGIN UPDATE `projects` SET `user_count` = `user_count` + 1 WHERE `id` = NEW.`project_id`; END;--> statement-breakpoint
CREATE TRIGGER `teams_count` AFTER INSERT ON `teams` BEGIN UPDATE `projects` SET `team_count` = `team_count` + 1 WHERE `id` = NEW.`project_id`; END;--> statement-breakpoint
UPDATE `projects` SET
  `host_count` = (SELECT count(*) FROM `hosts` WHERE `hosts`.`project_id` = `projects`.`id`),
  `user_count` = (SELECT count(*) FROM `users` WHERE `users`.`project_id` = `projects`.`id`),
  `team_count` = (SELECT count(*) FROM `teams` WHERE `teams`.`project_id` = `projects`.`id`);

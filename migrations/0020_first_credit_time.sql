ALTER TABLE `projects` ADD `first_credit_time` real;--> statement-breakpoint
-- hand-written: a project already credited gets the first day of its history kept here (its
-- daily buckets, or the first day of its oldest monthly one), else the day of its last grant
-- (all its credit is then in its current day).
UPDATE `projects` SET `first_credit_time` = coalesce(
  (SELECT min(`t`) FROM (
    SELECT `day` * 86400 AS `t` FROM `credit_history` WHERE `credit_history`.`project_id` = `projects`.`id` AND `subject` = 'project'
    UNION ALL
    SELECT CAST(strftime('%s', printf('%04d-%02d-01', 1970 + `month` / 12, `month` % 12 + 1)) AS INTEGER) AS `t`
      FROM `credit_history_monthly` WHERE `credit_history_monthly`.`project_id` = `projects`.`id` AND `subject` = 'project'
  )),
  CAST(`expavg_time` / 86400 AS INTEGER) * 86400
) WHERE `total_credit` > 0;

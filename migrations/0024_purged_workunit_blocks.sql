-- hand-edited: WITHOUT ROWID, so a block's row is one D1 row written, not two (drizzle-kit cannot express it);
-- and the runs of one workunit each (ids with gaps, from before this table) move into it, a row per block of 4096 ids.
CREATE TABLE `purged_workunit_blocks` (
	`project_id` integer NOT NULL,
	`block` integer NOT NULL,
	`offsets` text NOT NULL,
	PRIMARY KEY(`project_id`, `block`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `purged_workunit_blocks` (`project_id`, `block`, `offsets`)
	SELECT `project_id`, `first_id` / 4096, json_group_array(`first_id` % 4096)
	FROM (SELECT `project_id`, `first_id` FROM `purged_workunits` WHERE `first_id` = `last_id` AND `first_id` >= 0 ORDER BY `project_id`, `first_id`)
	GROUP BY `project_id`, `first_id` / 4096;
--> statement-breakpoint
DELETE FROM `purged_workunits` WHERE `first_id` = `last_id` AND `first_id` >= 0;

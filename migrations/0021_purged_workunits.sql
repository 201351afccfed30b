-- hand-edited: WITHOUT ROWID, so a run's row is one D1 row written, not two (drizzle-kit cannot express it).
CREATE TABLE `purged_workunits` (
	`project_id` integer NOT NULL,
	`first_id` integer NOT NULL,
	`last_id` integer NOT NULL,
	PRIMARY KEY(`project_id`, `first_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;

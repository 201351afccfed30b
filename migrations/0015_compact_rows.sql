-- hand-written (issue 23, fewer bytes per row): the tables are rebuilt WITHOUT ROWID (as 0010
-- made results and workunits; trickles gains it, so its primary key is no longer a second
-- b-tree). Existing rows are converted: a fingerprint's first 16 hex digits become the signed
-- 64-bit integer http/fingerprint.ts computes for the same content (so a re-post made before
-- this migration is still replayed); enum strings become the codes of src/db/codes.ts (a
-- code is the value's position in its list there; a valid result without policy credits is
-- 'valid_unclaimed'); times become whole seconds; a boinc credit equal to the granted credit,
-- and a fair credit equal to the boinc credit, become NULL (read back with coalesce); a
-- trickle's runtime is kept only where it was cut. Columns no reader needs are dropped (results: workunit_id,
-- app_version_id; workunits: canonical_result_id; trickles: result_id).
CREATE TABLE `__new_results` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`host_id` integer NOT NULL,
	`outcome` integer NOT NULL,
	`granted_credit` real DEFAULT 0 NOT NULL,
	`claimed_credit` real,
	`pfc_mode` integer,
	`boinc_credit` real,
	`fair_credit` real,
	`fair_rule` integer,
	`fingerprint` integer NOT NULL,
	`decided_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_results`("project_id", "id", "app_id", "host_id", "outcome", "granted_credit", "claimed_credit", "pfc_mode", "boinc_credit", "fair_credit", "fair_rule", "fingerprint", "decided_at") SELECT "project_id", "id", "app_id", "host_id", CASE "outcome" WHEN 'success' THEN CASE WHEN "validate_state" = 'invalid' THEN 1 WHEN "boinc_credit" IS NULL THEN 5 ELSE 0 END WHEN 'error' THEN 2 WHEN 'timeout' THEN 3 WHEN 'aborted' THEN 4 END, "granted_credit", "claimed_credit", CASE "pfc_mode" WHEN 'normal' THEN 0 WHEN 'approx' THEN 1 WHEN 'wu_est' THEN 2 WHEN 'invalid' THEN 3 END, CASE WHEN "boinc_credit" = "granted_credit" THEN NULL ELSE "boinc_credit" END, CASE WHEN "fair_credit" = "boinc_credit" THEN NULL ELSE "fair_credit" END, CASE "fair_rule" WHEN 'normalized' THEN 0 WHEN 'young_host' THEN 1 WHEN 'outlier_high' THEN 2 WHEN 'outlier_low' THEN 3 WHEN 'insane' THEN 4 WHEN 'bad_standing' THEN 5 WHEN 'host_scale_check' THEN 6 WHEN 'no_estimate' THEN 7 END, (((instr('0123456789abcdef', substr("fingerprint", 1, 1)) - 1) << 60) | ((instr('0123456789abcdef', substr("fingerprint", 2, 1)) - 1) << 56) | ((instr('0123456789abcdef', substr("fingerprint", 3, 1)) - 1) << 52) | ((instr('0123456789abcdef', substr("fingerprint", 4, 1)) - 1) << 48) | ((instr('0123456789abcdef', substr("fingerprint", 5, 1)) - 1) << 44) | ((instr('0123456789abcdef', substr("fingerprint", 6, 1)) - 1) << 40) | ((instr('0123456789abcdef', substr("fingerprint", 7, 1)) - 1) << 36) | ((instr('0123456789abcdef', substr("fingerprint", 8, 1)) - 1) << 32) | ((instr('0123456789abcdef', substr("fingerprint", 9, 1)) - 1) << 28) | ((instr('0123456789abcdef', substr("fingerprint", 10, 1)) - 1) << 24) | ((instr('0123456789abcdef', substr("fingerprint", 11, 1)) - 1) << 20) | ((instr('0123456789abcdef', substr("fingerprint", 12, 1)) - 1) << 16) | ((instr('0123456789abcdef', substr("fingerprint", 13, 1)) - 1) << 12) | ((instr('0123456789abcdef', substr("fingerprint", 14, 1)) - 1) << 8) | ((instr('0123456789abcdef', substr("fingerprint", 15, 1)) - 1) << 4) | ((instr('0123456789abcdef', substr("fingerprint", 16, 1)) - 1) << 0)), CAST("decided_at" AS INTEGER) FROM `results`;--> statement-breakpoint
DROP TABLE `results`;--> statement-breakpoint
ALTER TABLE `__new_results` RENAME TO `results`;--> statement-breakpoint
CREATE TABLE `__new_trickles` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`host_id` integer NOT NULL,
	`fingerprint` integer NOT NULL,
	`credit` real NOT NULL,
	`cut_runtime` real,
	`flops` real NOT NULL,
	`flops_source` integer NOT NULL,
	`granted_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_trickles`("project_id", "id", "app_id", "host_id", "fingerprint", "credit", "cut_runtime", "flops", "flops_source", "granted_at") SELECT "project_id", "id", "app_id", "host_id", (((instr('0123456789abcdef', substr("fingerprint", 1, 1)) - 1) << 60) | ((instr('0123456789abcdef', substr("fingerprint", 2, 1)) - 1) << 56) | ((instr('0123456789abcdef', substr("fingerprint", 3, 1)) - 1) << 52) | ((instr('0123456789abcdef', substr("fingerprint", 4, 1)) - 1) << 48) | ((instr('0123456789abcdef', substr("fingerprint", 5, 1)) - 1) << 44) | ((instr('0123456789abcdef', substr("fingerprint", 6, 1)) - 1) << 40) | ((instr('0123456789abcdef', substr("fingerprint", 7, 1)) - 1) << 36) | ((instr('0123456789abcdef', substr("fingerprint", 8, 1)) - 1) << 32) | ((instr('0123456789abcdef', substr("fingerprint", 9, 1)) - 1) << 28) | ((instr('0123456789abcdef', substr("fingerprint", 10, 1)) - 1) << 24) | ((instr('0123456789abcdef', substr("fingerprint", 11, 1)) - 1) << 20) | ((instr('0123456789abcdef', substr("fingerprint", 12, 1)) - 1) << 16) | ((instr('0123456789abcdef', substr("fingerprint", 13, 1)) - 1) << 12) | ((instr('0123456789abcdef', substr("fingerprint", 14, 1)) - 1) << 8) | ((instr('0123456789abcdef', substr("fingerprint", 15, 1)) - 1) << 4) | ((instr('0123456789abcdef', substr("fingerprint", 16, 1)) - 1) << 0)), "credit", CASE WHEN "runtime_cut" THEN "runtime" END, "flops", CASE "flops_source" WHEN 'host' THEN 0 WHEN 'p50' THEN 1 WHEN 'p95' THEN 2 END, CAST("granted_at" AS INTEGER) FROM `trickles`;--> statement-breakpoint
DROP TABLE `trickles`;--> statement-breakpoint
ALTER TABLE `__new_trickles` RENAME TO `trickles`;--> statement-breakpoint
CREATE TABLE `__new_workunits` (
	`project_id` integer NOT NULL,
	`id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`credit` real NOT NULL,
	`credited_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_workunits`("project_id", "id", "app_id", "credit", "credited_at") SELECT "project_id", "id", "app_id", "credit", CAST("credited_at" AS INTEGER) FROM `workunits`;--> statement-breakpoint
DROP TABLE `workunits`;--> statement-breakpoint
ALTER TABLE `__new_workunits` RENAME TO `workunits`;
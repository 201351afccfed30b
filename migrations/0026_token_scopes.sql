-- Token scopes (docs/tokens-and-audit.md#scopes): every token stored before this could do everything the project can,
-- so every existing row becomes `manage` (the DEFAULT) and keeps its rights; new tokens name their scope. ADD COLUMN
-- rewrites no row, and no request writes this table (tokens are read per request, not written).
ALTER TABLE `project_tokens` ADD `scope` text DEFAULT 'manage' NOT NULL;

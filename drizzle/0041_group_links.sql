CREATE TABLE `group_group_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`shared_group_id` integer NOT NULL,
	`shared_with_group_id` integer NOT NULL,
	`group_access` integer NOT NULL,
	`expires_at` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `group_group_links_shared_with` ON `group_group_links` (`shared_group_id`,`shared_with_group_id`);--> statement-breakpoint
CREATE INDEX `group_group_links_shared_with_group` ON `group_group_links` (`shared_with_group_id`);--> statement-breakpoint
CREATE TABLE `project_group_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`group_id` integer NOT NULL,
	`group_access` integer NOT NULL,
	`expires_at` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_group_links_project_group` ON `project_group_links` (`project_id`,`group_id`);--> statement-breakpoint
CREATE INDEX `project_group_links_group` ON `project_group_links` (`group_id`);--> statement-breakpoint
CREATE TABLE `share_grants` (
	`link_kind` text NOT NULL,
	`link_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`source_type` text NOT NULL,
	`source_id` integer NOT NULL,
	`access_level` integer NOT NULL,
	`expires_at` text
);
--> statement-breakpoint
CREATE INDEX `share_grants_user_source` ON `share_grants` (`user_id`,`source_type`,`source_id`);--> statement-breakpoint
CREATE INDEX `share_grants_link` ON `share_grants` (`link_kind`,`link_id`);--> statement-breakpoint
-- Written by hand (drizzle-kit leaves `.existing()` views alone): see accessGrants in src/db/schema/group-links.ts.
CREATE VIEW `access_grants` AS
  SELECT `user_id`, `source_type`, `source_id`, `access_level`, `expires_at` FROM `members`
  UNION ALL
  SELECT `user_id`, `source_type`, `source_id`, `access_level`, `expires_at` FROM `share_grants`;

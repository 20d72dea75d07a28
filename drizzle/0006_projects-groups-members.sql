CREATE TABLE `members` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_type` text NOT NULL,
	`source_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`access_level` integer NOT NULL,
	`expires_at` text,
	`created_by_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `members_user_source` ON `members` (`user_id`,`source_type`,`source_id`);--> statement-breakpoint
CREATE INDEX `members_source` ON `members` (`source_type`,`source_id`,`access_level`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`namespace_id` integer NOT NULL,
	`name` text NOT NULL,
	`path` text NOT NULL,
	`description` text,
	`visibility` text DEFAULT 'private' NOT NULL,
	`default_branch` text,
	`topics` text DEFAULT '[]' NOT NULL,
	`creator_id` integer,
	`archived` integer DEFAULT false NOT NULL,
	`request_access_enabled` integer DEFAULT true NOT NULL,
	`lfs_enabled` integer DEFAULT true NOT NULL,
	`features` text DEFAULT '{}' NOT NULL,
	`avatar_path` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`last_activity_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_namespace_path_lower` ON `projects` (`namespace_id`,lower("path"));--> statement-breakpoint
CREATE UNIQUE INDEX `projects_namespace_name_lower` ON `projects` (`namespace_id`,lower("name"));--> statement-breakpoint
CREATE INDEX `projects_visibility` ON `projects` (`visibility`,`id`);--> statement-breakpoint
CREATE INDEX `projects_creator` ON `projects` (`creator_id`);--> statement-breakpoint
CREATE INDEX `projects_name` ON `projects` (`name`,`id`);--> statement-breakpoint
CREATE INDEX `projects_path` ON `projects` (`path`,`id`);--> statement-breakpoint
CREATE INDEX `projects_created_at` ON `projects` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `projects_updated_at` ON `projects` (`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `projects_last_activity` ON `projects` (`last_activity_at`,`id`);--> statement-breakpoint
ALTER TABLE `namespaces` ADD `traversal_path` text;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `request_access_enabled` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `lfs_enabled` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `project_creation_level` text DEFAULT 'developer' NOT NULL;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `subgroup_creation_level` text DEFAULT 'maintainer' NOT NULL;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `share_with_group_lock` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `mentions_disabled` integer;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `emails_enabled` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `require_two_factor_authentication` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `two_factor_grace_period` integer DEFAULT 48 NOT NULL;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `default_branch_name` text;--> statement-breakpoint
ALTER TABLE `namespaces` ADD `avatar_path` text;--> statement-breakpoint
CREATE INDEX `namespaces_traversal_path` ON `namespaces` (`traversal_path`);
CREATE TABLE `protected_tag_create_access_levels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`protected_tag_id` integer NOT NULL,
	`access_level` integer,
	`user_id` integer
);
--> statement-breakpoint
CREATE INDEX `protected_tag_create_access_levels_tag` ON `protected_tag_create_access_levels` (`protected_tag_id`);--> statement-breakpoint
CREATE TABLE `protected_tags` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `protected_tags_project_name` ON `protected_tags` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `repo_tags` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`target_sha` text NOT NULL,
	`commit_sha` text NOT NULL,
	`message` text,
	`tagger_name` text,
	`tagger_email` text,
	`tagged_at` integer,
	`user_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `repo_tags_name` ON `repo_tags` (`project_id`,`name`);--> statement-breakpoint
CREATE INDEX `repo_tags_commit` ON `repo_tags` (`project_id`,`commit_sha`);--> statement-breakpoint
CREATE INDEX `repo_commit_parents_parent` ON `repo_commit_parents` (`project_id`,`parent_sha`);
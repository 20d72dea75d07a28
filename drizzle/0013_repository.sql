CREATE TABLE `repo_branch_updates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`branch` text NOT NULL,
	`old_sha` text,
	`new_sha` text NOT NULL,
	`user_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `repo_branch_updates_branch` ON `repo_branch_updates` (`project_id`,`branch`);--> statement-breakpoint
CREATE TABLE `repo_branches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`commit_sha` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `repo_branches_name` ON `repo_branches` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `repo_commit_files` (
	`project_id` integer NOT NULL,
	`commit_sha` text NOT NULL,
	`path` text NOT NULL,
	`blob_sha` text NOT NULL,
	`mode` text NOT NULL,
	`size` integer NOT NULL,
	PRIMARY KEY(`project_id`, `commit_sha`, `path`)
);
--> statement-breakpoint
CREATE TABLE `repo_commit_parents` (
	`project_id` integer NOT NULL,
	`sha` text NOT NULL,
	`parent_sha` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`project_id`, `sha`, `position`)
);
--> statement-breakpoint
CREATE TABLE `repo_commits` (
	`project_id` integer NOT NULL,
	`sha` text NOT NULL,
	`tree_sha` text NOT NULL,
	`parent_shas` text NOT NULL,
	`generation` integer NOT NULL,
	`message` text NOT NULL,
	`author_name` text NOT NULL,
	`author_email` text NOT NULL,
	`authored_at` integer NOT NULL,
	`committer_name` text NOT NULL,
	`committer_email` text NOT NULL,
	`committed_at` integer NOT NULL,
	`user_id` integer,
	`additions` integer DEFAULT 0 NOT NULL,
	`deletions` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `sha`)
);
--> statement-breakpoint
CREATE INDEX `repo_commits_time` ON `repo_commits` (`project_id`,`committed_at`);
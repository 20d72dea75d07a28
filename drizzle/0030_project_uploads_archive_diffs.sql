CREATE TABLE `project_uploads` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`dir` text NOT NULL,
	`filename` text NOT NULL,
	`size` integer NOT NULL,
	`uploaded_by_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_uploads_path` ON `project_uploads` (`project_id`,`dir`,`filename`);--> statement-breakpoint
CREATE INDEX `project_uploads_created` ON `project_uploads` (`project_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `merge_request_diff_commits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`merge_request_diff_id` integer NOT NULL,
	`relative_order` integer NOT NULL,
	`sha` text NOT NULL,
	`message` text NOT NULL,
	`author_name` text,
	`author_email` text,
	`authored_at` integer,
	`committer_name` text,
	`committer_email` text,
	`committed_at` integer
);
--> statement-breakpoint
CREATE INDEX `merge_request_diff_commits_version` ON `merge_request_diff_commits` (`merge_request_diff_id`,`relative_order`);--> statement-breakpoint
CREATE TABLE `merge_request_diff_files` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`merge_request_diff_id` integer NOT NULL,
	`relative_order` integer NOT NULL,
	`old_path` text NOT NULL,
	`new_path` text NOT NULL,
	`a_mode` text NOT NULL,
	`b_mode` text NOT NULL,
	`new_file` integer NOT NULL,
	`renamed_file` integer NOT NULL,
	`deleted_file` integer NOT NULL,
	`too_large` integer NOT NULL,
	`binary` integer NOT NULL,
	`diff` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `merge_request_diff_files_version` ON `merge_request_diff_files` (`merge_request_diff_id`,`relative_order`);
CREATE TABLE `project_export_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`jid` text NOT NULL,
	`status` text NOT NULL,
	`description` text,
	`upload_url` text,
	`upload_method` text,
	`blob_key` text,
	`filename` text,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_export_jobs_jid_unique` ON `project_export_jobs` (`jid`);--> statement-breakpoint
CREATE INDEX `project_export_jobs_project` ON `project_export_jobs` (`project_id`,`id`);
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
CREATE INDEX `project_uploads_created` ON `project_uploads` (`project_id`,`created_at`);
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
CREATE INDEX `project_group_links_group` ON `project_group_links` (`group_id`);
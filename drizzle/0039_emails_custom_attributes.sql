CREATE TABLE `emails` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`email` text NOT NULL,
	`confirmed_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `emails_email` ON `emails` (`email`);--> statement-breakpoint
CREATE INDEX `emails_user` ON `emails` (`user_id`,`id`);--> statement-breakpoint
CREATE TABLE `group_custom_attributes` (
	`group_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`group_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `group_custom_attributes_kv` ON `group_custom_attributes` (`key`,`value`);--> statement-breakpoint
CREATE TABLE `project_custom_attributes` (
	`project_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`project_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `project_custom_attributes_kv` ON `project_custom_attributes` (`key`,`value`);
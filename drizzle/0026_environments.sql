CREATE TABLE `deployments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`iid` integer NOT NULL,
	`environment_id` integer NOT NULL,
	`ref` text NOT NULL,
	`tag` integer DEFAULT false NOT NULL,
	`sha` text NOT NULL,
	`user_id` integer,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deployments_project_iid` ON `deployments` (`project_id`,`iid`);--> statement-breakpoint
CREATE INDEX `deployments_environment` ON `deployments` (`environment_id`,`id`);--> statement-breakpoint
CREATE TABLE `environments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`external_url` text,
	`tier` text NOT NULL,
	`state` text DEFAULT 'available' NOT NULL,
	`description` text,
	`auto_stop_at` integer,
	`auto_delete_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `environments_project_name` ON `environments` (`project_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `environments_project_slug` ON `environments` (`project_id`,`slug`);--> statement-breakpoint
CREATE TABLE `protected_environment_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`protected_environment_id` integer NOT NULL,
	`kind` text NOT NULL,
	`access_level` integer,
	`user_id` integer,
	`group_id` integer,
	`group_inheritance_type` integer DEFAULT 0 NOT NULL,
	`required_approvals` integer
);
--> statement-breakpoint
CREATE INDEX `protected_environment_entries_parent` ON `protected_environment_entries` (`protected_environment_id`,`kind`,`id`);--> statement-breakpoint
CREATE TABLE `protected_environments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`required_approval_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `protected_environments_project_name` ON `protected_environments` (`project_id`,`name`);
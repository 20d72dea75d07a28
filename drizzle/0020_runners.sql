CREATE TABLE `ci_registration_tokens` (
	`scope` text NOT NULL,
	`owner_id` integer NOT NULL,
	`token_digest` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `owner_id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ci_registration_tokens_digest` ON `ci_registration_tokens` (`token_digest`);--> statement-breakpoint
CREATE TABLE `ci_runner_namespaces` (
	`runner_id` integer NOT NULL,
	`namespace_id` integer NOT NULL,
	PRIMARY KEY(`runner_id`, `namespace_id`)
);
--> statement-breakpoint
CREATE INDEX `ci_runner_namespaces_namespace` ON `ci_runner_namespaces` (`namespace_id`);--> statement-breakpoint
CREATE TABLE `ci_runner_projects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`runner_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ci_runner_projects_pair` ON `ci_runner_projects` (`runner_id`,`project_id`);--> statement-breakpoint
CREATE INDEX `ci_runner_projects_project` ON `ci_runner_projects` (`project_id`);--> statement-breakpoint
CREATE TABLE `ci_runners` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`runner_type` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`maintenance_note` text,
	`token_digest` text NOT NULL,
	`token_expires_at` integer,
	`active` integer DEFAULT true NOT NULL,
	`locked` integer DEFAULT false NOT NULL,
	`run_untagged` integer DEFAULT true NOT NULL,
	`tag_list` text DEFAULT '[]' NOT NULL,
	`access_level` text DEFAULT 'not_protected' NOT NULL,
	`maximum_timeout` integer,
	`name` text,
	`version` text,
	`revision` text,
	`platform` text,
	`architecture` text,
	`executor_type` text,
	`ip_address` text,
	`contacted_at` integer,
	`registration_type` text NOT NULL,
	`created_by_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ci_runners_token_digest` ON `ci_runners` (`token_digest`);--> statement-breakpoint
CREATE INDEX `ci_runners_type` ON `ci_runners` (`runner_type`,`id`);
CREATE TABLE `import_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`correlation_id` text NOT NULL,
	`relation_key` text NOT NULL,
	`relation_index` integer,
	`exception_class` text NOT NULL,
	`exception_message` text,
	`source` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `import_failures_project` ON `import_failures` (`project_id`,`id`);--> statement-breakpoint
CREATE TABLE `project_import_states` (
	`project_id` integer PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`import_type` text DEFAULT 'gitlab_project' NOT NULL,
	`correlation_id` text NOT NULL,
	`last_error` text,
	`importer_id` integer NOT NULL,
	`blob_key` text,
	`override_params` text DEFAULT '{}' NOT NULL,
	`progress` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);

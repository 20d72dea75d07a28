CREATE TABLE `advisories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`osv_id` text NOT NULL,
	`record` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `advisories_osv_id_unique` ON `advisories` (`osv_id`);--> statement-breakpoint
CREATE TABLE `advisory_packages` (
	`advisory_id` integer NOT NULL,
	`ecosystem` text NOT NULL,
	`name` text NOT NULL,
	PRIMARY KEY(`ecosystem`, `name`, `advisory_id`)
);
--> statement-breakpoint
CREATE INDEX `advisory_packages_advisory` ON `advisory_packages` (`advisory_id`);--> statement-breakpoint
CREATE TABLE `project_dependencies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`version` text NOT NULL,
	`package_manager` text NOT NULL,
	`dependency_file_path` text NOT NULL,
	`ecosystem` text NOT NULL,
	`package_key` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `project_dependencies_project` ON `project_dependencies` (`project_id`,`id`);--> statement-breakpoint
CREATE TABLE `project_dependency_files` (
	`project_id` integer NOT NULL,
	`path` text NOT NULL,
	`blob_sha` text NOT NULL,
	PRIMARY KEY(`project_id`, `path`)
);

CREATE TABLE `geo_nodes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`url` text NOT NULL,
	`internal_url` text,
	`primary` integer DEFAULT false NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`files_max_capacity` integer DEFAULT 10 NOT NULL,
	`repos_max_capacity` integer DEFAULT 25 NOT NULL,
	`verification_max_capacity` integer DEFAULT 100 NOT NULL,
	`container_repositories_max_capacity` integer DEFAULT 10 NOT NULL,
	`sync_object_storage` integer DEFAULT false NOT NULL,
	`selective_sync_type` text,
	`selective_sync_shards` text DEFAULT '[]' NOT NULL,
	`namespace_ids` text DEFAULT '[]' NOT NULL,
	`minimum_reverification_interval` integer DEFAULT 7 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `geo_nodes_name_key` ON `geo_nodes` (`name_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `geo_nodes_primary` ON `geo_nodes` (`primary`) WHERE "primary" = 1;
CREATE TABLE `related_epic_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` integer NOT NULL,
	`target_id` integer NOT NULL,
	`link_type` text DEFAULT 'relates_to' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `related_epic_links_pair` ON `related_epic_links` (("source_id" + "target_id"),abs("source_id" - "target_id"));--> statement-breakpoint
CREATE INDEX `related_epic_links_source` ON `related_epic_links` (`source_id`);--> statement-breakpoint
CREATE INDEX `related_epic_links_target` ON `related_epic_links` (`target_id`);
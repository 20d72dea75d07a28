CREATE TABLE `issue_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` integer NOT NULL,
	`target_id` integer NOT NULL,
	`link_type` text DEFAULT 'relates_to' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `issue_links_pair` ON `issue_links` (("source_id" + "target_id"),abs("source_id" - "target_id"));--> statement-breakpoint
CREATE INDEX `issue_links_source` ON `issue_links` (`source_id`);--> statement-breakpoint
CREATE INDEX `issue_links_target` ON `issue_links` (`target_id`);--> statement-breakpoint
CREATE TABLE `resource_label_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`action` text NOT NULL,
	`issue_id` integer,
	`merge_request_id` integer,
	`epic_id` integer,
	`label_id` integer,
	`user_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `resource_label_events_issue` ON `resource_label_events` (`issue_id`);--> statement-breakpoint
CREATE INDEX `resource_label_events_mr` ON `resource_label_events` (`merge_request_id`);--> statement-breakpoint
CREATE INDEX `resource_label_events_epic` ON `resource_label_events` (`epic_id`);--> statement-breakpoint
CREATE INDEX `resource_label_events_label` ON `resource_label_events` (`label_id`);--> statement-breakpoint
CREATE TABLE `resource_milestone_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`action` text NOT NULL,
	`issue_id` integer,
	`merge_request_id` integer,
	`milestone_id` integer,
	`state` text NOT NULL,
	`user_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `resource_milestone_events_issue` ON `resource_milestone_events` (`issue_id`);--> statement-breakpoint
CREATE INDEX `resource_milestone_events_mr` ON `resource_milestone_events` (`merge_request_id`);--> statement-breakpoint
CREATE INDEX `resource_milestone_events_milestone` ON `resource_milestone_events` (`milestone_id`);--> statement-breakpoint
CREATE TABLE `resource_state_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`issue_id` integer,
	`merge_request_id` integer,
	`epic_id` integer,
	`state` text NOT NULL,
	`user_id` integer,
	`created_at` integer NOT NULL,
	`source_merge_request_id` integer,
	`source_commit` text
);
--> statement-breakpoint
CREATE INDEX `resource_state_events_issue` ON `resource_state_events` (`issue_id`);--> statement-breakpoint
CREATE INDEX `resource_state_events_mr` ON `resource_state_events` (`merge_request_id`);--> statement-breakpoint
CREATE INDEX `resource_state_events_epic` ON `resource_state_events` (`epic_id`);
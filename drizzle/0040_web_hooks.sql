CREATE TABLE `web_hook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`web_hook_id` integer NOT NULL,
	`uuid` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_until` integer,
	`due_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `web_hook_deliveries_event_hook` ON `web_hook_deliveries` (`event_id`,`web_hook_id`);--> statement-breakpoint
CREATE INDEX `web_hook_deliveries_state` ON `web_hook_deliveries` (`state`,`due_at`);--> statement-breakpoint
CREATE INDEX `web_hook_deliveries_hook` ON `web_hook_deliveries` (`web_hook_id`);--> statement-breakpoint
CREATE TABLE `web_hook_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`project_id` integer NOT NULL,
	`kind` text NOT NULL,
	`action` text,
	`object_id` integer,
	`actor_id` integer,
	`confidential` integer DEFAULT false NOT NULL,
	`data` text,
	`state` text DEFAULT 'pending' NOT NULL,
	`payload` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `web_hook_events_uuid` ON `web_hook_events` (`uuid`);--> statement-breakpoint
CREATE INDEX `web_hook_events_state` ON `web_hook_events` (`state`,`created_at`);--> statement-breakpoint
CREATE INDEX `web_hook_events_project` ON `web_hook_events` (`project_id`);--> statement-breakpoint
CREATE TABLE `web_hook_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`web_hook_id` integer NOT NULL,
	`delivery_id` integer,
	`trigger` text NOT NULL,
	`url` text NOT NULL,
	`request_headers` text NOT NULL,
	`request_data` text NOT NULL,
	`response_headers` text NOT NULL,
	`response_body` text NOT NULL,
	`response_status` text NOT NULL,
	`execution_duration` real NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `web_hook_logs_hook` ON `web_hook_logs` (`web_hook_id`,`id`);--> statement-breakpoint
CREATE TABLE `web_hooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`project_id` integer,
	`group_id` integer,
	`url` text NOT NULL,
	`name` text,
	`description` text,
	`encrypted_token` text,
	`push_events` integer DEFAULT true NOT NULL,
	`tag_push_events` integer DEFAULT false NOT NULL,
	`issues_events` integer DEFAULT false NOT NULL,
	`confidential_issues_events` integer DEFAULT false NOT NULL,
	`merge_requests_events` integer DEFAULT false NOT NULL,
	`note_events` integer DEFAULT false NOT NULL,
	`confidential_note_events` integer DEFAULT false NOT NULL,
	`job_events` integer DEFAULT false NOT NULL,
	`pipeline_events` integer DEFAULT false NOT NULL,
	`wiki_page_events` integer DEFAULT false NOT NULL,
	`deployment_events` integer DEFAULT false NOT NULL,
	`feature_flag_events` integer DEFAULT false NOT NULL,
	`releases_events` integer DEFAULT false NOT NULL,
	`milestone_events` integer DEFAULT false NOT NULL,
	`emoji_events` integer DEFAULT false NOT NULL,
	`resource_access_token_events` integer DEFAULT false NOT NULL,
	`resource_deploy_token_events` integer DEFAULT false NOT NULL,
	`member_events` integer DEFAULT false NOT NULL,
	`project_events` integer DEFAULT false NOT NULL,
	`subgroup_events` integer DEFAULT false NOT NULL,
	`vulnerability_events` integer DEFAULT false NOT NULL,
	`repository_update_events` integer DEFAULT false NOT NULL,
	`enable_ssl_verification` integer DEFAULT true NOT NULL,
	`push_events_branch_filter` text,
	`branch_filter_strategy` text DEFAULT 'wildcard' NOT NULL,
	`recent_failures` integer DEFAULT 0 NOT NULL,
	`disabled_until` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `web_hooks_project` ON `web_hooks` (`project_id`);--> statement-breakpoint
CREATE INDEX `web_hooks_group` ON `web_hooks` (`group_id`);
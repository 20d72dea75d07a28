CREATE TABLE `deployment_approvals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`deployment_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`approval_rule_id` integer,
	`status` text NOT NULL,
	`comment` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `deployment_approvals_deployment` ON `deployment_approvals` (`deployment_id`,`user_id`,`approval_rule_id`);--> statement-breakpoint
CREATE TABLE `deployment_merge_requests` (
	`deployment_id` integer NOT NULL,
	`merge_request_id` integer NOT NULL,
	`environment_id` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deployment_merge_requests_pk` ON `deployment_merge_requests` (`deployment_id`,`merge_request_id`);--> statement-breakpoint
CREATE INDEX `deployment_merge_requests_env` ON `deployment_merge_requests` (`environment_id`,`merge_request_id`);
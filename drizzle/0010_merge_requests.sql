CREATE TABLE `merge_request_assignees` (
	`merge_request_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`merge_request_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `merge_request_assignees_user` ON `merge_request_assignees` (`user_id`,`merge_request_id`);--> statement-breakpoint
CREATE TABLE `merge_request_mentioned_issues` (
	`merge_request_id` integer NOT NULL,
	`issue_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`merge_request_id`, `issue_id`)
);
--> statement-breakpoint
CREATE INDEX `merge_request_mentioned_issues_issue` ON `merge_request_mentioned_issues` (`issue_id`,`merge_request_id`);--> statement-breakpoint
CREATE TABLE `merge_request_reviewers` (
	`merge_request_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`state` text DEFAULT 'unreviewed' NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`merge_request_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `merge_request_reviewers_user` ON `merge_request_reviewers` (`user_id`,`merge_request_id`);--> statement-breakpoint
CREATE TABLE `merge_requests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`iid` integer NOT NULL,
	`source_project_id` integer NOT NULL,
	`source_branch` text NOT NULL,
	`target_branch` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`state` text DEFAULT 'opened' NOT NULL,
	`draft` integer DEFAULT false NOT NULL,
	`author_id` integer NOT NULL,
	`milestone_id` integer,
	`merge_user_id` integer,
	`merged_by_id` integer,
	`merged_at` integer,
	`closed_by_id` integer,
	`closed_at` integer,
	`merge_commit_sha` text,
	`squash_commit_sha` text,
	`squash` integer DEFAULT false NOT NULL,
	`force_remove_source_branch` integer,
	`should_remove_source_branch` integer,
	`allow_collaboration` integer DEFAULT false NOT NULL,
	`merge_when_pipeline_succeeds` integer DEFAULT false NOT NULL,
	`merge_status` text DEFAULT 'unchecked' NOT NULL,
	`merge_error` text,
	`discussion_locked` integer,
	`approvals_before_merge` integer,
	`head_sha` text,
	`base_sha` text,
	`start_sha` text,
	`time_estimate` integer DEFAULT 0 NOT NULL,
	`total_time_spent` integer DEFAULT 0 NOT NULL,
	`upvotes` integer DEFAULT 0 NOT NULL,
	`downvotes` integer DEFAULT 0 NOT NULL,
	`last_edited_at` integer,
	`last_edited_by_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `merge_requests_project_iid` ON `merge_requests` (`project_id`,`iid`);--> statement-breakpoint
CREATE UNIQUE INDEX `merge_requests_open_branches` ON `merge_requests` (`project_id`,`source_project_id`,`source_branch`,`target_branch`) WHERE state in ('opened', 'locked');--> statement-breakpoint
CREATE INDEX `merge_requests_source` ON `merge_requests` (`source_project_id`,`source_branch`,`state`);--> statement-breakpoint
CREATE INDEX `merge_requests_target` ON `merge_requests` (`project_id`,`target_branch`,`state`);--> statement-breakpoint
CREATE INDEX `merge_requests_project_created` ON `merge_requests` (`project_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `merge_requests_project_state_created` ON `merge_requests` (`project_id`,`state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `merge_requests_project_updated` ON `merge_requests` (`project_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `merge_requests_created` ON `merge_requests` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `merge_requests_updated` ON `merge_requests` (`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `merge_requests_author_created` ON `merge_requests` (`author_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `merge_requests_milestone` ON `merge_requests` (`milestone_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `merge_requests_closing_issues` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`merge_request_id` integer NOT NULL,
	`issue_id` integer NOT NULL,
	`from_mr_description` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `merge_requests_closing_issues_pair` ON `merge_requests_closing_issues` (`merge_request_id`,`issue_id`);--> statement-breakpoint
CREATE INDEX `merge_requests_closing_issues_issue` ON `merge_requests_closing_issues` (`issue_id`,`merge_request_id`);
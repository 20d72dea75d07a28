CREATE TABLE `approval_merge_request_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`merge_request_id` integer NOT NULL,
	`name` text NOT NULL,
	`approvals_required` integer DEFAULT 0 NOT NULL,
	`rule_type` text DEFAULT 'regular' NOT NULL,
	`report_type` text,
	`section` text,
	`approval_project_rule_id` integer,
	`modified_from_project_rule` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `approval_merge_request_rules_name` ON `approval_merge_request_rules` (`merge_request_id`,`rule_type`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `approval_merge_request_rules_any_approver` ON `approval_merge_request_rules` (`merge_request_id`) WHERE rule_type = 'any_approver';--> statement-breakpoint
CREATE INDEX `approval_merge_request_rules_source` ON `approval_merge_request_rules` (`approval_project_rule_id`);--> statement-breakpoint
CREATE TABLE `approval_merge_request_rules_groups` (
	`approval_merge_request_rule_id` integer NOT NULL,
	`group_id` integer NOT NULL,
	PRIMARY KEY(`approval_merge_request_rule_id`, `group_id`)
);
--> statement-breakpoint
CREATE INDEX `approval_merge_request_rules_groups_group` ON `approval_merge_request_rules_groups` (`group_id`);--> statement-breakpoint
CREATE TABLE `approval_merge_request_rules_users` (
	`approval_merge_request_rule_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`approval_merge_request_rule_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `approval_merge_request_rules_users_user` ON `approval_merge_request_rules_users` (`user_id`);--> statement-breakpoint
CREATE TABLE `approval_project_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`approvals_required` integer DEFAULT 0 NOT NULL,
	`rule_type` text DEFAULT 'regular' NOT NULL,
	`report_type` text,
	`applies_to_all_protected_branches` integer DEFAULT false NOT NULL,
	`vulnerabilities_allowed` integer DEFAULT 0 NOT NULL,
	`scanners` text DEFAULT '[]' NOT NULL,
	`severity_levels` text DEFAULT '[]' NOT NULL,
	`vulnerability_states` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `approval_project_rules_name` ON `approval_project_rules` (`project_id`,`rule_type`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `approval_project_rules_any_approver` ON `approval_project_rules` (`project_id`) WHERE rule_type = 'any_approver';--> statement-breakpoint
CREATE TABLE `approval_project_rules_groups` (
	`approval_project_rule_id` integer NOT NULL,
	`group_id` integer NOT NULL,
	PRIMARY KEY(`approval_project_rule_id`, `group_id`)
);
--> statement-breakpoint
CREATE INDEX `approval_project_rules_groups_group` ON `approval_project_rules_groups` (`group_id`);--> statement-breakpoint
CREATE TABLE `approval_project_rules_protected_branches` (
	`approval_project_rule_id` integer NOT NULL,
	`protected_branch_id` integer NOT NULL,
	PRIMARY KEY(`approval_project_rule_id`, `protected_branch_id`)
);
--> statement-breakpoint
CREATE INDEX `approval_project_rules_pb_branch` ON `approval_project_rules_protected_branches` (`protected_branch_id`);--> statement-breakpoint
CREATE TABLE `approval_project_rules_users` (
	`approval_project_rule_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`approval_project_rule_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `approval_project_rules_users_user` ON `approval_project_rules_users` (`user_id`);--> statement-breakpoint
CREATE TABLE `approvals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`merge_request_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`sha` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `approvals_merge_request_user` ON `approvals` (`merge_request_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `approvals_user` ON `approvals` (`user_id`);--> statement-breakpoint
CREATE TABLE `project_approval_settings` (
	`project_id` integer PRIMARY KEY NOT NULL,
	`approvals_before_merge` integer DEFAULT 0 NOT NULL,
	`reset_approvals_on_push` integer DEFAULT true NOT NULL,
	`selective_code_owner_removals` integer DEFAULT false NOT NULL,
	`disable_overriding_approvers_per_merge_request` integer DEFAULT false NOT NULL,
	`merge_requests_author_approval` integer DEFAULT false NOT NULL,
	`merge_requests_disable_committers_approval` integer DEFAULT false NOT NULL,
	`require_password_to_approve` integer DEFAULT false NOT NULL,
	`require_reauthentication_to_approve` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL
);

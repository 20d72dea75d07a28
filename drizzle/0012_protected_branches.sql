CREATE TABLE `protected_branch_access_levels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`protected_branch_id` integer NOT NULL,
	`kind` text NOT NULL,
	`access_level` integer,
	`user_id` integer,
	`group_id` integer,
	`deploy_key_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pb_access_levels_role` ON `protected_branch_access_levels` (`protected_branch_id`,`kind`,`access_level`) WHERE user_id IS NULL AND group_id IS NULL AND deploy_key_id IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `pb_access_levels_user` ON `protected_branch_access_levels` (`protected_branch_id`,`kind`,`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `pb_access_levels_group` ON `protected_branch_access_levels` (`protected_branch_id`,`kind`,`group_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `pb_access_levels_deploy_key` ON `protected_branch_access_levels` (`protected_branch_id`,`kind`,`deploy_key_id`);--> statement-breakpoint
CREATE INDEX `pb_access_levels_user_id` ON `protected_branch_access_levels` (`user_id`);--> statement-breakpoint
CREATE INDEX `pb_access_levels_group_id` ON `protected_branch_access_levels` (`group_id`);--> statement-breakpoint
CREATE TABLE `protected_branches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`allow_force_push` integer DEFAULT false NOT NULL,
	`code_owner_approval_required` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `protected_branches_project_name` ON `protected_branches` (`project_id`,`name`);
CREATE TABLE `merge_request_diffs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`merge_request_id` integer NOT NULL,
	`state` text DEFAULT 'collected' NOT NULL,
	`head_commit_sha` text,
	`base_commit_sha` text,
	`start_commit_sha` text,
	`real_size` text,
	`patch_id_sha` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `merge_request_diffs_merge_request` ON `merge_request_diffs` (`merge_request_id`,`id`);--> statement-breakpoint
-- Merge requests created before this table get one version from the diff refs they recorded.
INSERT INTO `merge_request_diffs` (`merge_request_id`, `state`, `head_commit_sha`, `base_commit_sha`, `start_commit_sha`, `real_size`, `created_at`, `updated_at`) SELECT `id`, 'collected', `head_sha`, `base_sha`, `start_sha`, NULL, `created_at`, `created_at` FROM `merge_requests` WHERE `head_sha` IS NOT NULL;

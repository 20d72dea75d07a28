ALTER TABLE `projects` ADD `merge_method` text DEFAULT 'merge' NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `squash_option` text DEFAULT 'default_off' NOT NULL;--> statement-breakpoint
ALTER TABLE `approvals` ADD `patch_id_sha` text;
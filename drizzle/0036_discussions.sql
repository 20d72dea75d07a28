ALTER TABLE `projects` ADD `only_allow_merge_if_all_discussions_are_resolved` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `commit_id` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `position` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `line_code` text;--> statement-breakpoint
CREATE INDEX `notes_commit` ON `notes` (`project_id`,`commit_id`);
ALTER TABLE `merge_requests` ADD `merge_facts_for` text;--> statement-breakpoint
ALTER TABLE `merge_requests` ADD `merge_base_sha` text;--> statement-breakpoint
ALTER TABLE `merge_requests` ADD `merge_conflict` integer;--> statement-breakpoint
ALTER TABLE `merge_requests` ADD `changed_files_count` integer;
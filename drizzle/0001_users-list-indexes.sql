CREATE INDEX `users_updated_at` ON `users` (`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `users_name` ON `users` (`name`,`id`);--> statement-breakpoint
CREATE INDEX `users_username_order` ON `users` (`username`,`id`);--> statement-breakpoint
CREATE INDEX `users_external` ON `users` (`external`,`id`);--> statement-breakpoint
CREATE INDEX `users_user_type` ON `users` (`user_type`,`id`);--> statement-breakpoint
CREATE INDEX `users_is_admin` ON `users` (`is_admin`,`id`);--> statement-breakpoint
CREATE INDEX `users_two_factor` ON `users` (`two_factor_enabled`,`id`);--> statement-breakpoint
CREATE INDEX `users_created_by` ON `users` (`created_by_id`);
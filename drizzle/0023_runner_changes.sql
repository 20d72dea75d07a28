CREATE TABLE `ci_runner_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`runner_id` integer,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ci_runner_changes_changed_at` ON `ci_runner_changes` (`changed_at`);
DROP INDEX `issues_project_created`;--> statement-breakpoint
DROP INDEX `issues_project_updated`;--> statement-breakpoint
DROP INDEX `issues_created`;--> statement-breakpoint
DROP INDEX `issues_updated`;--> statement-breakpoint
DROP INDEX `issues_author_created`;--> statement-breakpoint
DROP INDEX `issues_milestone`;--> statement-breakpoint
CREATE INDEX `issues_project_created` ON `issues` (`project_id`,`created_at`,`id`,`updated_at`,`state`,`confidential`,`author_id`);--> statement-breakpoint
CREATE INDEX `issues_project_updated` ON `issues` (`project_id`,`updated_at`,`id`,`created_at`,`state`);--> statement-breakpoint
CREATE INDEX `issues_created` ON `issues` (`created_at`,`id`,`project_id`,`confidential`,`author_id`);--> statement-breakpoint
CREATE INDEX `issues_updated` ON `issues` (`updated_at`,`id`,`project_id`,`confidential`,`author_id`);--> statement-breakpoint
CREATE INDEX `issues_author_created` ON `issues` (`author_id`,`created_at`,`id`,`project_id`,`state`);--> statement-breakpoint
CREATE INDEX `issues_milestone` ON `issues` (`milestone_id`,`created_at`,`id`,`project_id`,`state`);
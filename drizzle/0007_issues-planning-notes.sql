CREATE TABLE `epics` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`group_id` integer NOT NULL,
	`iid` integer NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`author_id` integer NOT NULL,
	`state` text DEFAULT 'opened' NOT NULL,
	`confidential` integer DEFAULT false NOT NULL,
	`parent_id` integer,
	`start_date` text,
	`due_date` text,
	`color` text DEFAULT '#1068bf' NOT NULL,
	`closed_at` integer,
	`closed_by_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `epics_group_iid` ON `epics` (`group_id`,`iid`);--> statement-breakpoint
CREATE INDEX `epics_group_created` ON `epics` (`group_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `epics_parent` ON `epics` (`parent_id`);--> statement-breakpoint
CREATE INDEX `epics_author` ON `epics` (`author_id`);--> statement-breakpoint
CREATE TABLE `internal_ids` (
	`usage` text NOT NULL,
	`scope_id` integer NOT NULL,
	`last_value` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`usage`, `scope_id`)
);
--> statement-breakpoint
CREATE TABLE `label_links` (
	`label_id` integer NOT NULL,
	`target_type` text NOT NULL,
	`target_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`target_type`, `target_id`, `label_id`)
);
--> statement-breakpoint
CREATE INDEX `label_links_label_target` ON `label_links` (`label_id`,`target_type`,`target_id`);--> statement-breakpoint
CREATE TABLE `label_priorities` (
	`project_id` integer NOT NULL,
	`label_id` integer NOT NULL,
	`priority` integer NOT NULL,
	PRIMARY KEY(`project_id`, `label_id`)
);
--> statement-breakpoint
CREATE INDEX `label_priorities_label` ON `label_priorities` (`label_id`);--> statement-breakpoint
CREATE TABLE `labels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer,
	`group_id` integer,
	`title` text NOT NULL,
	`color` text NOT NULL,
	`description` text,
	`archived` integer DEFAULT false NOT NULL,
	`lock_on_merge` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `labels_project_title` ON `labels` (`project_id`,`title`);--> statement-breakpoint
CREATE UNIQUE INDEX `labels_group_title` ON `labels` (`group_id`,`title`);--> statement-breakpoint
CREATE INDEX `labels_title` ON `labels` (`title`);--> statement-breakpoint
CREATE TABLE `milestones` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer,
	`group_id` integer,
	`iid` integer NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`state` text DEFAULT 'active' NOT NULL,
	`due_date` text,
	`start_date` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `milestones_project_iid` ON `milestones` (`project_id`,`iid`);--> statement-breakpoint
CREATE UNIQUE INDEX `milestones_group_iid` ON `milestones` (`group_id`,`iid`);--> statement-breakpoint
CREATE UNIQUE INDEX `milestones_project_title` ON `milestones` (`project_id`,`title`);--> statement-breakpoint
CREATE UNIQUE INDEX `milestones_group_title` ON `milestones` (`group_id`,`title`);--> statement-breakpoint
CREATE INDEX `milestones_title` ON `milestones` (`title`);--> statement-breakpoint
CREATE TABLE `issue_assignees` (
	`issue_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`issue_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `issue_assignees_user` ON `issue_assignees` (`user_id`,`issue_id`);--> statement-breakpoint
CREATE TABLE `issue_metric_images` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`issue_id` integer NOT NULL,
	`filename` text NOT NULL,
	`blob_key` text NOT NULL,
	`content_type` text,
	`size` integer NOT NULL,
	`url` text,
	`url_text` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `issue_metric_images_issue` ON `issue_metric_images` (`issue_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `issues` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`iid` integer NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`state` text DEFAULT 'opened' NOT NULL,
	`author_id` integer NOT NULL,
	`issue_type` text DEFAULT 'issue' NOT NULL,
	`confidential` integer DEFAULT false NOT NULL,
	`discussion_locked` integer DEFAULT false NOT NULL,
	`milestone_id` integer,
	`epic_id` integer,
	`due_date` text,
	`weight` integer,
	`health_status` text,
	`severity` text DEFAULT 'unknown' NOT NULL,
	`relative_position` integer,
	`moved_to_id` integer,
	`duplicated_to_id` integer,
	`time_estimate` integer DEFAULT 0 NOT NULL,
	`total_time_spent` integer DEFAULT 0 NOT NULL,
	`upvotes` integer DEFAULT 0 NOT NULL,
	`downvotes` integer DEFAULT 0 NOT NULL,
	`closed_at` integer,
	`closed_by_id` integer,
	`last_edited_at` integer,
	`last_edited_by_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `issues_project_iid` ON `issues` (`project_id`,`iid`);--> statement-breakpoint
CREATE INDEX `issues_project_created` ON `issues` (`project_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `issues_project_state_created` ON `issues` (`project_id`,`state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `issues_project_updated` ON `issues` (`project_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `issues_project_due` ON `issues` (`project_id`,`due_date`,`id`);--> statement-breakpoint
CREATE INDEX `issues_created` ON `issues` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `issues_author_created` ON `issues` (`author_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `issues_milestone` ON `issues` (`milestone_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `issues_epic` ON `issues` (`epic_id`);--> statement-breakpoint
CREATE TABLE `timelogs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`issue_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`time_spent` integer NOT NULL,
	`summary` text,
	`spent_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `timelogs_issue` ON `timelogs` (`issue_id`);--> statement-breakpoint
CREATE TABLE `user_agent_details` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subject_type` text NOT NULL,
	`subject_id` integer NOT NULL,
	`user_agent` text NOT NULL,
	`ip_address` text NOT NULL,
	`submitted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_agent_details_subject` ON `user_agent_details` (`subject_type`,`subject_id`);--> statement-breakpoint
CREATE TABLE `award_emoji` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`user_id` integer NOT NULL,
	`awardable_type` text NOT NULL,
	`awardable_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `award_emoji_unique` ON `award_emoji` (`awardable_type`,`awardable_id`,`name`,`user_id`);--> statement-breakpoint
CREATE INDEX `award_emoji_user_name` ON `award_emoji` (`user_id`,`name`,`awardable_type`,`awardable_id`);--> statement-breakpoint
CREATE TABLE `notes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`noteable_type` text NOT NULL,
	`noteable_id` integer NOT NULL,
	`project_id` integer,
	`author_id` integer NOT NULL,
	`body` text NOT NULL,
	`system` integer DEFAULT false NOT NULL,
	`internal` integer DEFAULT false NOT NULL,
	`type` text,
	`discussion_id` text,
	`resolvable` integer DEFAULT false NOT NULL,
	`resolved_at` integer,
	`resolved_by_id` integer,
	`last_edited_at` integer,
	`updated_by_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notes_noteable` ON `notes` (`noteable_type`,`noteable_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `notes_author` ON `notes` (`author_id`);--> statement-breakpoint
CREATE INDEX `notes_discussion` ON `notes` (`discussion_id`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`subscribable_type` text NOT NULL,
	`subscribable_id` integer NOT NULL,
	`project_id` integer,
	`subscribed` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_unique` ON `subscriptions` (`subscribable_type`,`subscribable_id`,`user_id`,`project_id`);--> statement-breakpoint
CREATE TABLE `todos` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`author_id` integer NOT NULL,
	`project_id` integer,
	`group_id` integer,
	`target_type` text NOT NULL,
	`target_id` integer NOT NULL,
	`note_id` integer,
	`action` integer NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`body` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `todos_user_state` ON `todos` (`user_id`,`state`,`id`);--> statement-breakpoint
CREATE INDEX `todos_target` ON `todos` (`target_type`,`target_id`,`user_id`,`state`);
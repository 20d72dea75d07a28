CREATE TABLE `gpg_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`key` text NOT NULL,
	`primary_keyid` text,
	`fingerprint` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `gpg_keys_user` ON `gpg_keys` (`user_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `gpg_keys_fingerprint` ON `gpg_keys` (`fingerprint`);--> statement-breakpoint
CREATE TABLE `identities` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`provider` text NOT NULL,
	`extern_uid` text NOT NULL,
	`saml_provider_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `identities_provider_uid` ON `identities` (`provider`,lower("extern_uid"));--> statement-breakpoint
CREATE UNIQUE INDEX `identities_user_provider` ON `identities` (`user_id`,`provider`);--> statement-breakpoint
CREATE TABLE `keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`title` text NOT NULL,
	`key` text NOT NULL,
	`key_type` text NOT NULL,
	`bits` integer NOT NULL,
	`fingerprint` text NOT NULL,
	`fingerprint_sha256` text NOT NULL,
	`usage_type` text DEFAULT 'auth_and_signing' NOT NULL,
	`expires_at` integer,
	`last_used_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `keys_fingerprint_sha256` ON `keys` (`fingerprint_sha256`);--> statement-breakpoint
CREATE INDEX `keys_user` ON `keys` (`user_id`,`id`);--> statement-breakpoint
CREATE TABLE `namespaces` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`path` text NOT NULL,
	`full_path` text NOT NULL,
	`parent_id` integer,
	`owner_id` integer,
	`visibility` text DEFAULT 'private' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `namespaces_full_path_lower` ON `namespaces` (lower("full_path"));--> statement-breakpoint
CREATE INDEX `namespaces_owner` ON `namespaces` (`owner_id`);--> statement-breakpoint
CREATE INDEX `namespaces_parent` ON `namespaces` (`parent_id`);--> statement-breakpoint
CREATE TABLE `user_custom_attributes` (
	`user_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`user_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `user_custom_attributes_kv` ON `user_custom_attributes` (`key`,`value`);--> statement-breakpoint
CREATE TABLE `user_follows` (
	`follower_id` integer NOT NULL,
	`followee_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`follower_id`, `followee_id`)
);
--> statement-breakpoint
CREATE INDEX `user_follows_followee` ON `user_follows` (`followee_id`,`follower_id`);--> statement-breakpoint
CREATE TABLE `user_statuses` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`emoji` text DEFAULT 'speech_balloon' NOT NULL,
	`message` text,
	`availability` text DEFAULT 'not_set' NOT NULL,
	`clear_status_at` integer
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`state` text DEFAULT 'active' NOT NULL,
	`user_type` text DEFAULT 'human' NOT NULL,
	`is_admin` integer DEFAULT false NOT NULL,
	`external` integer DEFAULT false NOT NULL,
	`private_profile` integer DEFAULT false NOT NULL,
	`bio` text DEFAULT '' NOT NULL,
	`location` text,
	`public_email` text,
	`commit_email` text,
	`skype` text DEFAULT '' NOT NULL,
	`linkedin` text DEFAULT '' NOT NULL,
	`twitter` text DEFAULT '' NOT NULL,
	`discord` text DEFAULT '' NOT NULL,
	`website_url` text DEFAULT '' NOT NULL,
	`organization` text,
	`job_title` text DEFAULT '' NOT NULL,
	`pronouns` text,
	`note` text,
	`theme_id` integer DEFAULT 3 NOT NULL,
	`color_scheme_id` integer DEFAULT 1 NOT NULL,
	`projects_limit` integer DEFAULT 100000 NOT NULL,
	`can_create_group` integer DEFAULT true NOT NULL,
	`password_digest` text,
	`password_automatically_set` integer DEFAULT false NOT NULL,
	`password_expires_at` integer,
	`confirmed_at` integer,
	`unconfirmed_email` text,
	`avatar_path` text,
	`created_by_id` integer,
	`two_factor_enabled` integer DEFAULT false NOT NULL,
	`last_sign_in_at` integer,
	`current_sign_in_at` integer,
	`last_sign_in_ip` text,
	`current_sign_in_ip` text,
	`sign_in_count` integer DEFAULT 0 NOT NULL,
	`last_activity_on` text,
	`view_diffs_file_by_file` integer DEFAULT false NOT NULL,
	`show_whitespace_in_diffs` integer DEFAULT true NOT NULL,
	`shared_runners_minutes_limit` integer,
	`extra_shared_runners_minutes_limit` integer,
	`is_auditor` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_lower` ON `users` (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_lower` ON `users` (lower("email"));--> statement-breakpoint
CREATE INDEX `users_state` ON `users` (`state`,`id`);--> statement-breakpoint
CREATE INDEX `users_created_at` ON `users` (`created_at`);--> statement-breakpoint
CREATE TABLE `oauth_access_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`application_id` integer,
	`token_digest` text NOT NULL,
	`refresh_token_digest` text,
	`scopes` text NOT NULL,
	`expires_in` integer,
	`revoked_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_token_digest` ON `oauth_access_tokens` (`token_digest`);--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_refresh_digest` ON `oauth_access_tokens` (`refresh_token_digest`);--> statement-breakpoint
CREATE INDEX `oauth_user` ON `oauth_access_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `oauth_applications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`uid` text NOT NULL,
	`secret_digest` text NOT NULL,
	`redirect_uri` text DEFAULT '' NOT NULL,
	`scopes` text DEFAULT 'api' NOT NULL,
	`confidential` integer DEFAULT true NOT NULL,
	`owner_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_app_uid` ON `oauth_applications` (`uid`);--> statement-breakpoint
CREATE TABLE `personal_access_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`token_digest` text NOT NULL,
	`scopes` text NOT NULL,
	`impersonation` integer DEFAULT false NOT NULL,
	`revoked` integer DEFAULT false NOT NULL,
	`expires_at` text,
	`last_used_at` integer,
	`previous_token_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pat_token_digest` ON `personal_access_tokens` (`token_digest`);--> statement-breakpoint
CREATE INDEX `pat_user` ON `personal_access_tokens` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `pat_previous` ON `personal_access_tokens` (`previous_token_id`);--> statement-breakpoint
CREATE TABLE `web_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_digest` text NOT NULL,
	`csrf_token` text NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `web_sessions_digest` ON `web_sessions` (`session_digest`);--> statement-breakpoint
CREATE INDEX `web_sessions_user` ON `web_sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `application_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`data` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `audit_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`author_id` integer NOT NULL,
	`author_name` text NOT NULL,
	`entity_id` integer NOT NULL,
	`entity_type` text NOT NULL,
	`entity_path` text,
	`target_id` integer,
	`target_type` text,
	`target_details` text,
	`event_name` text NOT NULL,
	`details` text NOT NULL,
	`ip_address` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_entity` ON `audit_events` (`entity_type`,`entity_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_created` ON `audit_events` (`created_at`);
CREATE TABLE `feature_gates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`feature_key` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feature_gates_feature_key_key_value` ON `feature_gates` (`feature_key`,`key`,`value`);--> statement-breakpoint
CREATE TABLE `features` (
	`key` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);

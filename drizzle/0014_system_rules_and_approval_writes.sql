DROP INDEX `approval_merge_request_rules_name`;--> statement-breakpoint
CREATE UNIQUE INDEX `approval_merge_request_rules_code_owner` ON `approval_merge_request_rules` (`merge_request_id`,`section`,`name`) WHERE rule_type = 'code_owner';--> statement-breakpoint
CREATE UNIQUE INDEX `approval_merge_request_rules_report_type` ON `approval_merge_request_rules` (`merge_request_id`,`report_type`) WHERE rule_type = 'report_approver';--> statement-breakpoint
CREATE UNIQUE INDEX `approval_merge_request_rules_name` ON `approval_merge_request_rules` (`merge_request_id`,`rule_type`,`name`) WHERE rule_type <> 'code_owner';--> statement-breakpoint
ALTER TABLE `merge_requests` ADD `system_rules_synced_for` text;--> statement-breakpoint
ALTER TABLE `approvals` ADD `write_id` text;
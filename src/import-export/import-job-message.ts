/** The queue message of a project import: the project whose `project_import_states` row drives it. */
export const IMPORT_JOB = 'project_import';

/** Membership sources (member-reads.ts reads the rows). */

export type SourceType = 'Project' | 'Namespace';

/**
 * Label presenters (GitLab lib/api/entities/label_basic.rb, label.rb, project_label.rb,
 * group_label.rb). Pure: counts, subscription and priority are loaded by services/labels.ts.
 */
import { z } from 'zod';
import type { labels } from '../db/schema';
import { renderEmojiMessage } from '../platform/emoji';
import { id, int, obj } from '../platform/response-schemas';

export type LabelRow = typeof labels.$inferSelect;

/** Gitlab::Color::PATTERN: `#rgb` or `#rrggbb`. */
export const COLOR_PATTERN = /^#(?:[0-9A-Fa-f]{3}){1,2}$/;

/**
 * Label#text_color (Gitlab::Color#contrast): '#333333' on light backgrounds (r+g+b > 500),
 * '#FFFFFF' otherwise, including for a colour that is not a valid code.
 */
export function textColorFor(color: string): string {
  const c = color.trim();
  if (!COLOR_PATTERN.test(c)) return '#FFFFFF';
  const hex = c.length === 4 ? c.slice(1).split('').map((d) => d + d) : [c.slice(1, 3), c.slice(3, 5), c.slice(5, 7)];
  const sum = hex.reduce((s, h) => s + parseInt(h, 16), 0);
  return sum > 500 ? '#333333' : '#FFFFFF';
}

/**
 * The `single_line` markdown pipeline (cache_markdown_field :description) for plain text: HTML
 * escaped as CommonMark does (`"` included), emoji rendered, no paragraph wrapper. Inline markdown
 * syntax (emphasis, links) is not rendered.
 */
export const descriptionHtml = (s: string | null | undefined) => (s ? s.split('"').map(renderEmojiMessage).join('&quot;') : '');

/**
 * LabelBasic, newest field order: id, name, description, description_html, text_color, color.
 * (`archived` is exposed only behind the `labels_archive` feature flag, off by default.)
 */
export const LabelBasicSchema = obj({
  id,
  name: z.string(),
  description: z.string().nullable(),
  description_html: z.string(),
  text_color: z.string(),
  color: z.string(),
}).meta({ id: 'LabelBasic' });
export type LabelBasic = z.infer<typeof LabelBasicSchema>;

export const labelBasic = (l: LabelRow): LabelBasic => ({
  id: l.id,
  name: l.title,
  description: l.description ?? null,
  description_html: descriptionHtml(l.description),
  text_color: textColorFor(l.color),
  color: l.color,
});

/** An issuable's `labels`: titles, or LabelBasic objects with `with_labels_details=true`. */
export const IssuableLabelsSchema = z.union([z.array(z.string()), z.array(LabelBasicSchema)]);

export interface LabelExtras {
  /** Present only with `with_counts=true` (Entities::Label `with_options if: with_counts`). */
  counts?: { openIssues: number; closedIssues: number; openMergeRequests: number } | null;
  subscribed: boolean;
}

export const LabelSchema = LabelBasicSchema.extend({
  /** With `with_counts=true`. */
  open_issues_count: int.optional(),
  closed_issues_count: int.optional(),
  open_merge_requests_count: int.optional(),
  subscribed: z.boolean(),
}).meta({ id: 'Label', description: 'A group label, or a label without its project fields' });
export type Label = z.infer<typeof LabelSchema>;

/** Entities::Label (= GroupLabel): LabelBasic, the optional counts, then `subscribed`. */
export function labelEntity(l: LabelRow, x: LabelExtras): Label {
  return {
    ...labelBasic(l),
    ...(x.counts
      ? { open_issues_count: x.counts.openIssues, closed_issues_count: x.counts.closedIssues, open_merge_requests_count: x.counts.openMergeRequests }
      : {}),
    subscribed: x.subscribed,
  };
}

export const ProjectLabelSchema = LabelSchema.extend({ priority: int.nullable(), is_project_label: z.boolean() }).meta({ id: 'ProjectLabel' });
export type ProjectLabel = z.infer<typeof ProjectLabelSchema>;

/** Entities::ProjectLabel: Label plus the project's `priority` and `is_project_label`. */
export function projectLabelEntity(l: LabelRow, x: LabelExtras & { priority: number | null }): ProjectLabel {
  return { ...labelEntity(l, x), priority: x.priority, is_project_label: l.projectId != null };
}

/**
 * A DiffNote's position as the API shows it: Gitlab::Diff::Position#to_h, from
 * lib/gitlab/diff/formatters/base_formatter.rb and text_formatter.rb (image_formatter.rb adds
 * width, height, x, y). Pure.
 */
import { z } from 'zod';
import { int, obj } from '../platform/response-schemas';

const LinePointSchema = obj({ line_code: z.string().nullable().optional(), type: z.string().nullable().optional(), old_line: int.nullable().optional(), new_line: int.nullable().optional() });

export const DiffPositionSchema = obj({
  base_sha: z.string(),
  start_sha: z.string(),
  head_sha: z.string(),
  old_path: z.string().nullable(),
  new_path: z.string().nullable(),
  position_type: z.enum(['text', 'image', 'file']),
  old_line: int.nullable().optional(),
  new_line: int.nullable().optional(),
  line_range: obj({ start: LinePointSchema.nullable().optional(), end: LinePointSchema.nullable().optional() }).nullable().optional(),
  ignore_whitespace_change: z.boolean().optional(),
  width: int.nullable().optional(),
  height: int.nullable().optional(),
  x: int.nullable().optional(),
  y: int.nullable().optional(),
}).meta({ id: 'DiffPosition' });
export type DiffPosition = z.infer<typeof DiffPositionSchema>;

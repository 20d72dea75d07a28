/** Notes and award emoji parameters (GitLab lib/api/notes.rb, award_emoji.rb). */
import { paginationParams } from '../platform/pagination';
import { g, nonBlank, params } from '../platform/validate';

export const listNotesParams = params({
  id: g.string(),
  issue_iid: g.int(),
  order_by: g.enum(['created_at', 'updated_at'] as const).default('created_at'),
  sort: g.enum(['asc', 'desc'] as const).default('desc'),
  activity_filter: g.enum(['all_notes', 'only_comments', 'only_activity'] as const).default('all_notes'),
  ...paginationParams,
});
export const noteRefParams = params({ id: g.string(), issue_iid: g.int(), note_id: g.int() });
export const createNoteParams = params({
  id: g.string(),
  issue_iid: g.int(),
  body: g.string(),
  confidential: g.bool().optional(),
  internal: g.bool().optional(),
  created_at: g.datetime().optional(),
  merge_request_diff_head_sha: g.string().optional(),
});
export const updateNoteParams = params({ id: g.string(), issue_iid: g.int(), note_id: g.int(), body: nonBlank().optional(), confidential: g.bool().optional() });

export const listAwardsParams = params({ id: g.string(), issue_iid: g.int(), ...paginationParams });
export const listNoteAwardsParams = params({ id: g.string(), issue_iid: g.int(), note_id: g.int(), ...paginationParams });
export const awardRefParams = params({ id: g.string(), issue_iid: g.int(), award_id: g.int() });
export const noteAwardRefParams = params({ id: g.string(), issue_iid: g.int(), note_id: g.int(), award_id: g.int() });
export const createAwardParams = params({ id: g.string(), issue_iid: g.int(), name: g.string() });
export const createNoteAwardParams = params({ id: g.string(), issue_iid: g.int(), note_id: g.int(), name: g.string() });

export const listEpicNotesParams = params({
  id: g.string(),
  epic_id: g.int(),
  order_by: g.enum(['created_at', 'updated_at'] as const).default('created_at'),
  sort: g.enum(['asc', 'desc'] as const).default('desc'),
  activity_filter: g.enum(['all_notes', 'only_comments', 'only_activity'] as const).default('all_notes'),
  ...paginationParams,
});
export const epicNoteRefParams = params({ id: g.string(), epic_id: g.int(), note_id: g.int() });
export const updateEpicNoteParams = params({ id: g.string(), epic_id: g.int(), note_id: g.int(), body: nonBlank().optional(), confidential: g.bool().optional() });
export const createEpicNoteParams = params({
  id: g.string(),
  epic_id: g.int(),
  body: g.string(),
  confidential: g.bool().optional(),
  internal: g.bool().optional(),
  created_at: g.datetime().optional(),
});

export const listEpicAwardsParams = params({ id: g.string(), epic_iid: g.int(), ...paginationParams });
export const epicAwardRefParams = params({ id: g.string(), epic_iid: g.int(), award_id: g.int() });
export const createEpicAwardParams = params({ id: g.string(), epic_iid: g.int(), name: g.string() });

// Merge request notes (notes.rb with noteable_type MergeRequest) and award emoji (award_emoji.rb, `merge_request_iid`).
export const listMergeRequestNotesParams = params({
  id: g.string(),
  merge_request_iid: g.int(),
  order_by: g.enum(['created_at', 'updated_at'] as const).default('created_at'),
  sort: g.enum(['asc', 'desc'] as const).default('desc'),
  activity_filter: g.enum(['all_notes', 'only_comments', 'only_activity'] as const).default('all_notes'),
  ...paginationParams,
});
export const mergeRequestNoteRefParams = params({ id: g.string(), merge_request_iid: g.int(), note_id: g.int() });
export const createMergeRequestNoteParams = params({
  id: g.string(),
  merge_request_iid: g.int(),
  body: g.string(),
  confidential: g.bool().optional(),
  internal: g.bool().optional(),
  created_at: g.datetime().optional(),
  merge_request_diff_head_sha: g.string().optional(),
});
export const updateMergeRequestNoteParams = params({ id: g.string(), merge_request_iid: g.int(), note_id: g.int(), body: nonBlank().optional(), confidential: g.bool().optional() });

export const listMergeRequestAwardsParams = params({ id: g.string(), merge_request_iid: g.int(), ...paginationParams });
export const listMergeRequestNoteAwardsParams = params({ id: g.string(), merge_request_iid: g.int(), note_id: g.int(), ...paginationParams });
export const mergeRequestAwardRefParams = params({ id: g.string(), merge_request_iid: g.int(), award_id: g.int() });
export const mergeRequestNoteAwardRefParams = params({ id: g.string(), merge_request_iid: g.int(), note_id: g.int(), award_id: g.int() });
export const createMergeRequestAwardParams = params({ id: g.string(), merge_request_iid: g.int(), name: g.string() });
export const createMergeRequestNoteAwardParams = params({ id: g.string(), merge_request_iid: g.int(), note_id: g.int(), name: g.string() });

/**
 * Parameters of the three issue lists (GitLab lib/api/issues.rb `issues_params`,
 * `issues_stats_params`, `negatable_issue_filter_params` and their EE parts in
 * ee/lib/ee/api/helpers/issues_helpers.rb). One shared group, as in current GitLab: `title`
 * ordering and `milestone_id` are accepted on every list although the docs name `/issues` only.
 */
import { z } from 'zod';
import { paginationParams } from '../platform/pagination';
import { g, LIST_MAX, LONG_LIST_MAX, params, type Rule } from '../platform/validate';

/** Helpers::IssuesHelpers.sort_options plus EE `weight`. */
export const ORDER_BY = ['created_at', 'due_date', 'label_priority', 'milestone_due', 'popularity', 'priority', 'relative_position', 'title', 'updated_at', 'weight'] as const;
export const SCOPES = ['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'all'] as const;
export const DUE_DATES = ['0', 'any', 'today', 'tomorrow', 'overdue', 'week', 'month', 'next_month_and_previous_two_weeks', ''] as const;
/** WorkItems::TypesFilter.allowed_types_for_issues, restricted to the types this server stores. */
export const ISSUE_TYPES = ['issue', 'incident', 'test_case', 'task'] as const;
/** IssuesFinder::Params::VALID_HEALTH_STATUS_PARAMS (Issue.health_statuses plus none/any). */
export const HEALTH_STATUSES = ['on_track', 'needs_attention', 'at_risk', 'none', 'any'] as const;

/**
 * `types: [Integer, String], integer_none_any: true` (IntegerOrCustomValue): an integer, or one of
 * the custom words in any case; otherwise `<param> should be an integer, none, or any, however got x`.
 */
export const intOr = (words: string[]) =>
  z
    .unknown()
    .transform((v, ctx): number | string => {
      if (typeof v === 'number' && Number.isInteger(v)) return v;
      const s = typeof v === 'string' ? v : Array.isArray(v) || (v && typeof v === 'object') ? JSON.stringify(v) : String(v);
      if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) && Number.isSafeInteger(Number(v.trim()))) return Number(v.trim());
      if (typeof v === 'string' && words.includes(v.toLowerCase())) return v.toLowerCase();
      const options = ['an integer', ...words];
      const sentence = options.length === 2 ? options.join(' or ') : `${options.slice(0, -1).join(', ')}, or ${options[options.length - 1]}`;
      ctx.addIssue({ code: 'custom', message: `should be ${sentence}, however got ${s}`, input: v });
      return z.NEVER;
    })
    .meta({ grapeType: 'Integer|String', jsonType: 'string' });

/**
 * Grape DateTime (DateTime.parse). A raw `+` in a query string decodes to a space
 * (`2024-01-01T10:00:00 01:00`); Ruby's Date._parse finds no zone without a sign and reads the
 * time as UTC, so we do the same instead of refusing it.
 */
const dateTime = () =>
  z
    .unknown()
    .transform((v, ctx): number => {
      if (typeof v === 'string') {
        const s = v.trim();
        const spaced = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s+\d{2}:?\d{2}$/.exec(s);
        const candidate = spaced ? `${spaced[1].replace(' ', 'T')}Z` : s;
        if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC)?$/i.test(candidate)) {
          let norm = candidate.replace(' ', 'T').replace(/\s*UTC$/i, 'Z');
          if (/^\d{4}-\d{2}-\d{2}$/.test(norm)) norm += 'T00:00:00Z';
          else if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(norm)) norm += 'Z';
          norm = norm.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
          const ms = Date.parse(norm);
          if (!Number.isNaN(ms)) return ms;
        }
      }
      ctx.addIssue({ code: 'custom', message: 'is invalid', input: v });
      return z.NEVER;
    })
    .meta({ grapeType: 'DateTime', jsonType: 'string', format: 'date-time' });

/** Filters by iid are read in chunks (issue-finder.ts); a thousand is past any page a client asks for. */
const IIDS_MAX = 1000;

/** CommaSeparatedToIntegerArray: `1,2`, `iids[]=1&iids[]=2`, or a JSON array. */
const intCsv = () =>
  z
    .unknown()
    .transform((v, ctx): number[] => {
      const list = (Array.isArray(v) ? v : [v]).flatMap((x) => (typeof x === 'string' ? x.split(',') : [x])).filter((x) => !(typeof x === 'string' && x.trim() === ''));
      if (list.length > IIDS_MAX) {
        ctx.addIssue({ code: 'custom', message: `must contain at most ${IIDS_MAX} items`, input: v });
        return z.NEVER;
      }
      const out: number[] = [];
      for (const x of list) {
        const n = typeof x === 'number' ? x : typeof x === 'string' && /^\s*[+-]?\d+\s*$/.test(x) ? Number(x.trim()) : NaN;
        if (!Number.isSafeInteger(n)) {
          ctx.addIssue({ code: 'custom', message: 'is invalid', input: v });
          return z.NEVER;
        }
        out.push(n);
      }
      return out;
    })
    .meta({ grapeType: 'Array[Integer]', jsonType: 'array' });

/** CheckAssigneesCount.coerce: a string or an array, never split on commas; at most LIST_MAX names, like every list. */
export const usernames = () =>
  z
    .unknown()
    .transform((v, ctx): string[] => {
      const list = typeof v === 'string' ? [v] : Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : String(x))) : [];
      if (list.length > LIST_MAX) {
        ctx.addIssue({ code: 'custom', message: `must contain at most ${LIST_MAX} items`, input: v });
        return z.NEVER;
      }
      return list;
    })
    .meta({ grapeType: 'Array[String]', jsonType: 'array' });

const NONE_ANY = ['none', 'any'];
const ITERATION_WORDS = ['none', 'any', 'current'];

/** `negatable_issue_filter_params` (+ EE): the keys of `not[...]`. */
const notShape = {
  labels: g.csv({ max: LONG_LIST_MAX }).optional(),
  milestone: g.string().optional(),
  milestone_id: g.enum(['Any', 'None', 'Upcoming', 'Started'] as const).optional(),
  iids: intCsv().optional(),
  author_id: g.int().optional(),
  author_username: g.string().optional(),
  assignee_id: g.int().optional(),
  assignee_username: usernames().optional(),
  weight: g.int().optional(),
  iteration_id: intOr(ITERATION_WORDS).optional(),
  iteration_title: g.string().optional(),
  // Group and project lists also read these (spec table); GitLab's finder negates them when present.
  my_reaction_emoji: g.string().optional(),
};
export const NOT_RULES: [string, string][] = [
  ['milestone_id', 'milestone'],
  ['author_id', 'author_username'],
  ['assignee_id', 'assignee_username'],
  ['iteration_id', 'iteration_title'],
];

/**
 * A `not` hash validated like Grape's nested `optional :not, type: Hash do ... end` (errors named
 * `not[key]`); its `mutually_exclusive` pairs are checked by `notRuleErrors` after validation.
 */
const notHash = () =>
  z
    .unknown()
    .transform((v, ctx) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) {
        ctx.addIssue({ code: 'custom', message: 'is invalid', input: v });
        return z.NEVER;
      }
      const raw = { ...(v as Record<string, unknown>) };
      for (const [k, val] of Object.entries(raw)) if ((val === '' || val === null) && k !== 'milestone' && k !== 'author_username' && k !== 'iteration_title') delete raw[k];
      const parsed = z.object(notShape).safeParse(raw);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          ctx.addIssue({ code: 'custom', message: issue.code === 'custom' ? issue.message : 'is invalid', path: issue.path, input: v });
        }
        return z.NEVER;
      }
      return parsed.data;
    })
    .meta({ grapeType: 'Hash', jsonType: 'object' });

const baseShape = {
  with_labels_details: g.bool().default(false),
  state: g.enum(['opened', 'closed', 'all'] as const).default('all'),
  closed_by_id: g.int().optional(),
  order_by: g.enum(ORDER_BY).default('created_at'),
  sort: g.enum(['asc', 'desc'] as const).default('desc'),
  due_date: g.enum(DUE_DATES).optional(),
  issue_type: g.enum(ISSUE_TYPES).optional(),
  labels: g.csv({ max: LONG_LIST_MAX }).optional(),
  milestone: g.string().optional(),
  milestone_id: g.enum(['Any', 'None', 'Upcoming', 'Started'] as const).optional(),
  iids: intCsv().optional(),
  search: g.search().optional(),
  in: g.string().optional(),
  author_id: g.int().optional(),
  author_username: g.string().optional(),
  assignee_id: intOr(NONE_ANY).optional(),
  assignee_username: usernames().optional(),
  created_after: dateTime().optional(),
  created_before: dateTime().optional(),
  updated_after: dateTime().optional(),
  updated_before: dateTime().optional(),
  not: notHash().optional(),
  my_reaction_emoji: g.string().optional(),
  confidential: g.bool().optional(),
  weight: intOr(NONE_ANY).optional(),
  epic_id: intOr(NONE_ANY).optional(),
  health_status: z
    .unknown()
    .transform((v, ctx): string => {
      const s = typeof v === 'string' ? v.toLowerCase() : undefined;
      if (s !== undefined && (HEALTH_STATUSES as readonly string[]).includes(s)) return s;
      ctx.addIssue({ code: 'custom', message: 'does not have a valid value', input: v });
      return z.NEVER;
    })
    .meta({ grapeType: 'String', jsonType: 'string', enum: [...HEALTH_STATUSES] })
    .optional(),
  iteration_id: intOr(ITERATION_WORDS).optional(),
  iteration_title: g.string().optional(),
  ...paginationParams,
};

const rules: Rule[] = [
  { mutuallyExclusive: ['milestone_id', 'milestone'] },
  { mutuallyExclusive: ['author_id', 'author_username'] },
  { mutuallyExclusive: ['assignee_id', 'assignee_username'] },
  { mutuallyExclusive: ['iteration_id', 'iteration_title'] },
];

export const projectIssuesParams = params({ id: g.string(), ...baseShape, scope: g.enum(SCOPES).optional() }, rules);
export const groupIssuesParams = params({ id: g.string(), ...baseShape, scope: g.enum(SCOPES).optional(), non_archived: g.bool().default(true) }, rules);
export const issuesParams = params({ ...baseShape, scope: g.enum(SCOPES).default('created_by_me'), non_archived: g.bool().default(true) }, rules);

export type IssueListParams = z.output<z.ZodObject<typeof baseShape>> & {
  scope?: (typeof SCOPES)[number];
  non_archived?: boolean;
};
export type NotParams = z.output<z.ZodObject<typeof notShape>>;

/** Declared defaults, repeated in Link URLs as Grape's `params` carries them (offset_header_builder.rb). */
export const listDefaults = (kind: 'issues' | 'group' | 'project'): Record<string, unknown> => ({
  with_labels_details: false,
  state: 'all',
  order_by: 'created_at',
  sort: 'desc',
  ...(kind === 'issues' ? { scope: 'created_by_me' } : {}),
  ...(kind !== 'project' ? { non_archived: true } : {}),
});

/** The nested `mutually_exclusive` rules of `not`: Grape names both params in full (`not[a], not[b]`). */
export function notRuleErrors(raw: unknown): string[] {
  if (!raw || typeof raw !== 'object') return [];
  const h = raw as Record<string, unknown>;
  return NOT_RULES.filter(([a, b]) => h[a] != null && h[b] != null).map(([a, b]) => `not[${a}], not[${b}] are mutually exclusive`);
}

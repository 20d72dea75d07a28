/**
 * Length caps on stored text, in GitLab's model-validation words. Every write route checks its
 * free-text fields here before storing them, so no field is unbounded (a 50 MB label description
 * would otherwise make every label list 50 MB), and a failure reads as GitLab's
 * `{"message":{"<attr>":["is too long (maximum is N characters)"]}}`.
 */

/** Gitlab::Database::MAX_TEXT_SIZE_LIMIT: GitLab's cap for text columns without a limit of their own. */
export const MAX_TEXT_SIZE = 1_000_000;
/**
 * A D1 row holds at most 2,000,000 bytes, and a million characters can take four times that in
 * UTF-8: a text capped in characters is also held to this many bytes (in BytesizeValidator's words),
 * so what validation accepts can always be stored. It only bites on texts of mostly multi-byte characters.
 */
export const STORED_TEXT_MAX_BYTES = 1_900_000;
/** The `string(255)` columns GitLab validates with `length: { maximum: 255 }`. */
export const NAME_MAX = 255;

/** ActiveModel's length validator (characters, as Ruby's String#size counts them: code points). */
export function tooLong(value: string, max: number): string | null {
  if (value.length <= max) return null; // fast path: UTF-16 units are never fewer than code points
  let n = 0;
  for (const _ of value) if (++n > max) return `is too long (maximum is ${max} characters)`;
  return null;
}

/** ActiveSupport::NumberHelper.number_to_human_size (base 1024, three significant digits). */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'Byte' : 'Bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${Number(value.toFixed(digits))} ${units[unit]}`;
}

const encoder = new TextEncoder();

/** BytesizeValidator (app/validators/bytesize_validator.rb): the UTF-8 size, and its message. */
export function tooBig(value: string, maxBytes: number): string | null {
  // A string of N UTF-16 units takes at most 3N bytes: skip the encoding when it cannot be over.
  if (value.length * 3 <= maxBytes) return null;
  const size = encoder.encode(value).byteLength;
  return size > maxBytes ? `is too long (${humanSize(size)}). The maximum size is ${humanSize(maxBytes)}.` : null;
}

export type TextErrors = Record<string, string[]>;

/**
 * Checks each given field against its cap (`max` characters, or `bytes` for a bytesize validation)
 * and adds the message under the attribute name; a character cap also keeps the text within
 * STORED_TEXT_MAX_BYTES. Absent and null fields are not checked.
 */
export function checkText(errors: TextErrors, fields: Record<string, string | null | undefined>, caps: Record<string, { max?: number; bytes?: number }>): TextErrors {
  for (const [attr, cap] of Object.entries(caps)) {
    const value = fields[attr];
    if (value == null) continue;
    const message = cap.bytes !== undefined ? tooBig(value, cap.bytes) : (tooLong(value, cap.max ?? MAX_TEXT_SIZE) ?? tooBig(value, STORED_TEXT_MAX_BYTES));
    if (message) (errors[attr] ??= []).push(message);
  }
  return errors;
}

/** The expense categories of capabilities.md `receipt`; a receipt's `category` is always one of them. */
export const CATEGORIES = [
  'meals',
  'travel',
  'lodging',
  'transport',
  'office',
  'software',
  'utilities',
  'entertainment',
  'groceries',
  'health',
  'other',
] as const

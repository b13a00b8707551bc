/** Rounds to `digits` decimals (the report's figures). */
export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
/** a ÷ b, 0 when b is 0. */
export const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 3) : 0);

/** The median of the known values (null when none). */
export function median(values: (number | null)[]): number | null {
  const known = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  if (!known.length) return null;
  const mid = Math.floor(known.length / 2);
  return known.length % 2 ? known[mid]! : round((known[mid - 1]! + known[mid]!) / 2, 1);
}

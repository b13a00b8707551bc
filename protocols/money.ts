/** Micro-USD per USD: money is an integer number of micro-dollars everywhere inside. */
export const MICROS_PER_USD = 1_000_000;

/** Converts a wire amount in USD to integer micro-USD, rounding to the nearest micro-dollar. */
export function usdToMicros(usd: number): number {
  return Math.round(usd * MICROS_PER_USD);
}

/** Converts integer micro-USD to a USD number for the wire (exact to six decimals). */
export function microsToUsd(micros: number): number {
  return Number((micros / MICROS_PER_USD).toFixed(6));
}

/** US dollars × 10⁶ (the API's `costMicros`) as dollars and cents; a fraction of a cent shows as such. */
export const dollars = (micros: number): string => (micros > 0 && micros < 10_000 ? '< $0.01' : `$${(micros / 1e6).toFixed(2)}`);

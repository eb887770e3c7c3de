/** Injectable time source: domain code never calls Date.now() directly, so expiry logic is testable. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const isoNow = (clock: Clock): string => clock.now().toISOString();

export const addSeconds = (date: Date, seconds: number): Date => new Date(date.getTime() + seconds * 1000);

/** Epoch seconds, the unit of the DynamoDB TTL attribute. */
export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** A YYYY-MM-DD string that names a real calendar day. */
export function isCalendarDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

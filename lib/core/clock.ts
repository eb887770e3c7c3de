/** Injectable time source: domain code never calls Date.now() directly, so expiry logic is testable. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const isoNow = (clock: Clock): string => clock.now().toISOString();

export const addSeconds = (date: Date, seconds: number): Date => new Date(date.getTime() + seconds * 1000);

/** Epoch seconds, the unit of the DynamoDB TTL attribute. */
export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/*
 * Dates of time tracking. An entry's `date` is a calendar day (YYYY-MM-DD); weeks are ISO 8601
 * weeks taken in UTC (Monday to Sunday), the unit of an agent's weekly hours cap.
 */

const DAY_MS = 24 * 3600 * 1000;

/** The ISO week of a day, e.g. `2026-W48` (the week belongs to the year of its Thursday). */
export function isoWeekOf(day: string): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  const weekday = date.getUTCDay() || 7;
  const thursday = new Date(date.getTime() + (4 - weekday) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / DAY_MS / 7) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The calendar day at an instant as seen `offsetMinutes` east of UTC (+60 for UTC+01:00). */
export const dayAtOffset = (instant: Date, offsetMinutes: number): string => new Date(instant.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 10);

/** The first and last day of a month or a year, for date-range queries. */
export function dayRange(year: number, month?: number): { from: string; to: string } {
  if (month === undefined) return { from: `${year}-01-01`, to: `${year}-12-31` };
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const mm = String(month).padStart(2, '0');
  return { from: `${year}-${mm}-01`, to: `${year}-${mm}-${String(last).padStart(2, '0')}` };
}

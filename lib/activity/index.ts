/** Public face of the activity counters for other domains: they reach it only through this file. */
export { activityDelta, activitySince, closingDelta, utcDay, utcDaysBefore, utcMonthStart } from './activity.js';

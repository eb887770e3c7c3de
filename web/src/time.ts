/** "4 min ago", "in 12 min": the distance between now and an ISO time, in words. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  const words = (s: number) => (s < 60 ? `${s} s` : s < 3600 ? `${Math.round(s / 60)} min` : s < 86_400 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86_400)} d`);
  return seconds >= 0 ? `${words(seconds)} ago` : `in ${words(-seconds)}`;
}

/** Time left until an ISO time ("3 min 20 s left"), or "lapsed". */
export function remaining(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (seconds <= 0) return 'lapsed';
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes} min ${seconds % 60} s left` : `${seconds} s left`;
}

export const minutesText = (minutes: number): string => (minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`);

/** A request's error, as the API worded it, announced to screen readers; nothing when there is none. */
export function ErrorAlert({ error }: { error: Error | null }) {
  return error ? (
    <p role="alert" className="error">
      {error.message}
    </p>
  ) : null;
}

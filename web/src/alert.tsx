import { Component, type ReactNode } from 'react';

/** A request's error, as the API worded it, announced to screen readers; nothing when there is none. */
export function ErrorAlert({ error }: { error: Error | null }) {
  return error ? (
    <p role="alert" className="error">
      {error.message}
    </p>
  ) : null;
}

/**
 * A page that fails to render shows what failed, in place of the page, instead of emptying the
 * whole console; the navigation stays. Moving to another page (a new `resetKey`) tries again.
 */
export class PageBoundary extends Component<{ resetKey: string; children: ReactNode }, { error: Error | null; key: string }> {
  override state = { error: null as Error | null, key: this.props.resetKey };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: { error: Error | null; key: string }) {
    return props.resetKey === state.key ? null : { error: null, key: props.resetKey };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <section className="page">
        <h1>This page failed</h1>
        <ErrorAlert error={this.state.error} />
        <p className="muted">Reload the page, or choose another page above.</p>
      </section>
    );
  }
}

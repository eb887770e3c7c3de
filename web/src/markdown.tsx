import Markdown from 'markdown-to-jsx/react';
import type { ReactNode } from 'react';

/**
 * Markdown as React elements, never as HTML: raw HTML in the text is shown as text
 * (`disableParsingRawHTML`), so no tag or handler it holds runs. Links keep only http(s), mailto
 * and this origin's paths; images become their text, since the console loads nothing from
 * another host. Headings start at h3, under the page's own.
 */
const SAFE_LINK = /^(https?:|mailto:|\/(?!\/)|#)/i;

type Children = { children?: ReactNode };
const H3 = ({ children }: Children) => <h3>{children}</h3>;
const H4 = ({ children }: Children) => <h4>{children}</h4>;
const H5 = ({ children }: Children) => <h5>{children}</h5>;
const H6 = ({ children }: Children) => <h6>{children}</h6>;
const Image = ({ alt }: { alt?: string }) => <span className="muted">[image{alt ? `: ${alt}` : ''}]</span>;
const Anchor = ({ href, children }: { href?: string; children?: ReactNode }) => (
  <a href={href} rel="noopener noreferrer nofollow">
    {children}
  </a>
);

const OPTIONS = {
  disableParsingRawHTML: true,
  sanitizer: (value: string) => (SAFE_LINK.test(value.trim()) ? value : null),
  overrides: {
    h1: H3,
    h2: H4,
    h3: H5,
    h4: H6,
    h5: H6,
    h6: H6,
    img: Image,
    a: Anchor,
  },
};

export function MarkdownText({ text }: { text: string }) {
  return (
    <div className="markdown">
      <Markdown options={OPTIONS}>{text}</Markdown>
    </div>
  );
}

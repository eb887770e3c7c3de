import { describe, expect, it } from 'vitest';
import { linkTo } from '../../lib/mail/index.js';

// Where a mailed link points (lib/mail): never at a Host the request could forge.
describe('a mailed link', () => {
  const token = { token: 'inv_1.secret' };

  it('points at the organization’s own origin when the stack has a base domain, whatever the Host', () => {
    expect(linkTo('/app/join', token, { slug: 'acme', baseDomain: 'work.example.com', requestOrigin: 'https://evil.example' })).toBe('https://acme.work.example.com/app/join?token=inv_1.secret');
  });

  it('names the organization on the API’s own endpoint when the stack has no base domain', () => {
    expect(linkTo('/app/join', token, { slug: 'acme', baseDomain: '', requestOrigin: 'https://abc123.execute-api.eu-west-1.amazonaws.com' })).toBe(
      'https://abc123.execute-api.eu-west-1.amazonaws.com/app/join?org=acme&token=inv_1.secret',
    );
  });

  it('stays on a loopback origin locally', () => {
    expect(linkTo('/app/reset', token, { slug: 'acme', baseDomain: 'localhost', requestOrigin: 'http://localhost:3111' })).toBe('http://localhost:3111/app/reset?org=acme&token=inv_1.secret');
    expect(linkTo('/app/reset', token, { slug: 'acme', baseDomain: 'localhost', requestOrigin: 'https://evil.example' })).toBe('http://localhost/app/reset?org=acme&token=inv_1.secret');
  });
});
